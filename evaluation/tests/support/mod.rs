pub mod referee;
