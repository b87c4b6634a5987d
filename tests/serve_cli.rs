//! `stratego serve`: what it refuses before it serves (one error line and
//! a non-zero exit), and a port already taken. Playing on its page is
//! tested in a real browser (tests/browser.rs).

mod common;
use common::*;

#[test]
fn serve_refuses_bad_input_in_one_line() {
    assert_refused(&["serve", "--agent", "nonsense"], "nonsense");
    assert_refused(&["serve", "--agent", "net:/nonexistent/model.safetensors", "--port", "0"], "nonexistent");
    assert_refused(&["serve", "--agent", "random", "--move-time-ms", "0"], "move-time-ms");
    assert_refused(&["serve", "--agent", "random", "--max-games", "0"], "max-games");
    assert_refused(&["serve", "--agent", "random", "--bind", "not-an-address"], "bind");
    // A network under rules it was not trained for.
    let net = format!("{}/registrations/cpu-4h-spar.safetensors", env!("CARGO_MANIFEST_DIR"));
    assert_refused(&["serve", "--agent", &format!("net:{net}"), "--pieces", "barrage", "--port", "0"], "cannot play");
    // A port that is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    assert_refused(&["serve", "--agent", "random", "--port", &port], "cannot listen");
}
