//! The pages as a person uses them, in a real headless browser (Debian's
//! chromium driven through its chromedriver): a `stratego view` page opened
//! from the disk, stepped through with the keys and the buttons, turned to
//! each side; a bot's own log, which opens as the bot saw the game only. `.ci/run` installs the browser and sets
//! `STRATEGO_REQUIRE_BROWSER=1`, where a missing browser fails instead of
//! skipping.

mod common;
use common::*;

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

/// The browser's driver, ended with the test.
struct Driver {
    child: Child,
    port: u16,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The driver, started on a free port, or `None` (the test skipped) where
/// the browser is not installed and not required.
fn driver() -> Option<Driver> {
    if !Path::new(CHROMEDRIVER).is_file() || !Path::new(CHROMIUM).is_file() {
        assert!(
            std::env::var_os("STRATEGO_REQUIRE_BROWSER").is_none(),
            "STRATEGO_REQUIRE_BROWSER is set but {CHROMIUM} or {CHROMEDRIVER} is missing (apt-get install chromium chromium-driver)"
        );
        eprintln!("skipped: no {CHROMIUM} and {CHROMEDRIVER} (apt-get install chromium chromium-driver)");
        return None;
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let driver = Driver { child, port };
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(start.elapsed() < Duration::from_secs(30), "chromedriver did not listen on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    Some(driver)
}

/// A headless session, with the flags a closed network needs (no
/// background connections) and a fresh profile.
async fn browser(driver: &Driver, profile: &Path) -> Client {
    let args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1200,950",
    ];
    let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    args.push(format!("--user-data-dir={}", profile.display()));
    let mut caps = serde_json::Map::new();
    caps.insert("goog:chromeOptions".into(), serde_json::json!({ "binary": CHROMIUM, "args": args }));
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&format!("http://127.0.0.1:{}", driver.port))
        .await
        .expect("a browser session")
}

async fn text(client: &Client, css: &str) -> String {
    client.find(Locator::Css(css)).await.unwrap().text().await.unwrap()
}

async fn count(client: &Client, css: &str) -> usize {
    client.find_all(Locator::Css(css)).await.unwrap().len()
}

/// Where a screenshot goes: docs/ with `UPDATE_SCREENSHOTS=1`, else the
/// test's scratch directory.
fn screenshot_path(dir: &Path, name: &str) -> PathBuf {
    if std::env::var_os("UPDATE_SCREENSHOTS").is_some() {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs").join(name)
    } else {
        dir.join(name)
    }
}

#[test]
fn a_viewer_page_steps_through_a_referee_game_from_each_side() {
    let Some(driver) = driver() else { return };
    let dir = scratch("browser-view");
    let log = dir.join("known-miner.log");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ucc/celsius-known-miner.log"), &log)
        .unwrap();
    let net = format!("{}/registrations/cpu-4h-spar.safetensors", env!("CARGO_MANIFEST_DIR"));
    stratego_ok(&["view", log.to_str().unwrap(), "--net", &net]);
    let page = dir.join("known-miner.log.html");
    let plies =
        std::fs::read_to_string(&log).unwrap().lines().filter(|l| l.contains(" RED: ") || l.contains(" BLU: ")).count();

    let bot_log = dir.join("bot.txt");
    std::fs::copy(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ucc/celsius-bot-record.txt"), &bot_log)
        .unwrap();
    stratego_ok(&["view", bot_log.to_str().unwrap()]);
    let bot_page = dir.join("bot.txt.html");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = browser(&driver, &dir.join("profile")).await;
        client.goto(&format!("file://{}", page.display())).await.unwrap();
        assert_eq!(text(&client, "#plyLabel").await, format!("ply 0 of {plies}"));
        assert_eq!(count(&client, "#board .cell").await, 100);
        assert_eq!(count(&client, "#board .piece").await, 80);
        assert_eq!(count(&client, "#moves li").await, plies);
        // Everything shown at first: no piece hidden.
        assert_eq!(count(&client, "#board .piece.hidden").await, 0);

        // Three plies forward by the keys, one back by the button.
        let body = client.find(Locator::Css("body")).await.unwrap();
        for _ in 0..3 {
            body.send_keys("\u{E014}").await.unwrap(); // ArrowRight
        }
        assert_eq!(text(&client, "#plyLabel").await, format!("ply 3 of {plies}"));
        assert!(text(&client, "#status").await.starts_with("after 3. "), "{}", text(&client, "#status").await);
        assert_eq!(count(&client, "#moves li.current").await, 1);
        client.find(Locator::Css("#prev")).await.unwrap().click().await.unwrap();
        assert_eq!(text(&client, "#plyLabel").await, format!("ply 2 of {plies}"));
        // The network's view of the position: its mover and its moves.
        let net_text = text(&client, "#net").await;
        assert!(
            net_text.contains("the network, as red to move") && net_text.contains("its likeliest moves"),
            "{net_text}"
        );

        // From Blue's side at the start, Red's 40 pieces are hidden and
        // Blue's own are not; the board is turned round.
        client.find(Locator::Css("#first")).await.unwrap().click().await.unwrap();
        client.find(Locator::Css("#view")).await.unwrap().select_by_value("blue").await.unwrap();
        assert_eq!(count(&client, "#board .piece.red.hidden").await, 40);
        assert_eq!(count(&client, "#board .piece.blue.hidden").await, 0);
        let first_cell = client.find(Locator::Css("#board .cell")).await.unwrap().attr("data-cell").await.unwrap();
        assert_eq!(first_cell.as_deref(), Some("9"), "Blue's view puts a1's row at the top, turned");
        // The belief head's guesses stand on the hidden pieces of the side
        // not to move (Red moves first, so none from Blue's side at ply 0).
        assert_eq!(count(&client, "#board .guess").await, 0);
        client.find(Locator::Css("#view")).await.unwrap().select_by_value("red").await.unwrap();
        assert_eq!(count(&client, "#board .piece.blue.hidden").await, 40);
        assert_eq!(count(&client, "#board .guess").await, 40);

        // To the end: the last move is the Miner taking the Flag, and it
        // shows in the list and the status.
        client.find(Locator::Css("#last")).await.unwrap().click().await.unwrap();
        assert_eq!(text(&client, "#plyLabel").await, format!("ply {plies} of {plies}"));
        assert!(text(&client, "#status").await.contains("miner × flag: wins"), "{}", text(&client, "#status").await);
        // The slider moves the page too.
        client
            .execute(
                "const s = document.getElementById('slider'); s.value = 10; s.dispatchEvent(new Event('input'));",
                vec![],
            )
            .await
            .unwrap();
        assert_eq!(text(&client, "#plyLabel").await, format!("ply 10 of {plies}"));
        client.find(Locator::Css("#view")).await.unwrap().select_by_value("all").await.unwrap();
        let png = client.screenshot().await.unwrap();
        assert!(png.starts_with(&[0x89, b'P', b'N', b'G']));
        std::fs::write(screenshot_path(&dir, "viewer.png"), png).unwrap();

        // A bot's own log opens as the bot saw the game, and offers no
        // other view: the page has no data for one.
        client.goto(&format!("file://{}", bot_page.display())).await.unwrap();
        assert_eq!(
            client.find(Locator::Css("#view")).await.unwrap().prop("value").await.unwrap().as_deref(),
            Some("red")
        );
        let disabled = client.find_all(Locator::Css("#view option:disabled")).await.unwrap();
        assert_eq!(disabled.len(), 2, "everything shown and Blue's side are off");
        assert_eq!(count(&client, "#board .piece.blue.hidden").await, 40);
        client.find(Locator::Css("#last")).await.unwrap().click().await.unwrap();
        assert_eq!(text(&client, "#plyLabel").await, "ply 248 of 248");
        client.close().await.unwrap();
    });
}
