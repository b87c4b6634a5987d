//! The lab's shared support, beneath every crate that reads or writes
//! files, and beside the games: it knows no rule of any game.
//!
//! - `files`: reading the files a user names, bounded (`read_text`,
//!   `read_data`), and writing atomically;
//! - `generated_docs`: the parts of the documents that code generates, and
//!   the drift checks that keep them equal;
//! - `toml_line`: a TOML parse error as one line naming the key and the line.

pub mod files;
pub mod generated_docs;
pub mod toml_line;
