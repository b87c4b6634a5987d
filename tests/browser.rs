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

/// The browser's driver, ended with the test. The tests take turns (one
/// browser at a time: two at once on a 2-core machine starve each other).
struct Driver {
    child: Child,
    port: u16,
    _turn: std::sync::MutexGuard<'static, ()>,
}

static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
    let turn = TURN.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = Command::new(CHROMEDRIVER)
        .arg(format!("--port={port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromedriver starts");
    let mut driver = Driver { child, port, _turn: turn };
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Ok(Some(status)) = driver.child.try_wait() {
            panic!("chromedriver exited ({status}) before it listened on {port}");
        }
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
    // A session can be refused while the driver settles after its port
    // opened: a few tries, a second apart.
    let mut tries = 0;
    loop {
        let connected = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps.clone())
            .connect(&format!("http://127.0.0.1:{}", driver.port))
            .await;
        match connected {
            Ok(client) => return client,
            Err(e) if tries < 5 => {
                tries += 1;
                eprintln!("no browser session yet ({e}); trying again");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            Err(e) => panic!("no browser session after {tries} tries: {e}"),
        }
    }
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

/// `stratego serve`, ended with the test: its child process and the page's
/// address from its first line.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(args: &[&str]) -> Served {
    use std::io::BufRead;
    let mut child = command(&[&["serve", "--port", "0"][..], args].concat())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("stratego serve starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line
        .strip_prefix("serving on ")
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no address in `{line}`"))
        .to_string();
    Served { child, url }
}

/// The status line of a plain HTTP request to the server.
fn http_status(url: &str, request_line: &str) -> String {
    use std::io::{Read, Write};
    let host = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(host).unwrap();
    write!(stream, "{request_line}\r\nHost: {host}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer.lines().next().unwrap_or_default().to_string()
}

/// Waits until the page's script says `expr` is true.
async fn until(client: &Client, expr: &str, what: &str) {
    let start = Instant::now();
    loop {
        let v = client.execute(&format!("return Boolean({expr});"), vec![]).await.unwrap();
        if v.as_bool() == Some(true) {
            return;
        }
        assert!(start.elapsed() < Duration::from_secs(30), "waited 30 s for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn click_square(client: &Client, square: &str) {
    client.find(Locator::Css(&format!("#board .cell[data-square='{square}']"))).await.unwrap().click().await.unwrap();
}

/// Plays the served page's game to its end, one click pair a move (the
/// legal moves in turn); returns the battles the page listed.
async fn play_to_the_end(client: &Client) -> usize {
    let mut battles = 0;
    loop {
        until(client, "phase === 'over' || seen.to_move === seen.you", "our turn").await;
        if client.execute("return phase;", vec![]).await.unwrap() == "over" {
            return battles;
        }
        let plies = client.execute("return log.length;", vec![]).await.unwrap().as_u64().unwrap();
        let legal: Vec<String> =
            serde_json::from_value(client.execute("return seen.legal;", vec![]).await.unwrap()).unwrap();
        let mv = &legal[plies as usize % legal.len()];
        let (from, to) = mv.split_once('-').unwrap();
        click_square(client, from).await;
        click_square(client, to).await;
        until(client, &format!("log.length > {plies}"), "the move played").await;
        battles = count(client, "#log li.battle").await;
    }
}

/// Starts the served page's game as Red from the proposed setup.
async fn start_game(client: &Client, url: &str) {
    client.goto(url).await.unwrap();
    until(client, "phase === 'setup' && setup.length === 40", "a proposed setup").await;
    client.find(Locator::Css("#start")).await.unwrap().click().await.unwrap();
    until(client, "phase === 'play' && seen.to_move === seen.you", "the first move").await;
}

/// The bar of issue 53: a whole game against the four-hour network
/// searching (`netrollout`) at 100 ms a move, measured as the server's
/// answer time to each of the person's moves (the page's `answers`).
/// Ignored: a measurement, run by hand (BENCHMARKS.md, "The play page").
#[test]
#[ignore]
fn serve_answer_times_against_netrollout() {
    let Some(driver) = driver() else { return };
    let dir = scratch("browser-serve-times");
    let spec = format!("netrollout:{}/registrations/cpu-4h-spar.safetensors", env!("CARGO_MANIFEST_DIR"));
    let served = serve(&["--agent", &spec, "--move-time-ms", "100"]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = browser(&driver, &dir.join("profile")).await;
        start_game(&client, &served.url).await;
        play_to_the_end(&client).await;
        let mut answers: Vec<f64> =
            serde_json::from_value(client.execute("return answers;", vec![]).await.unwrap()).unwrap();
        let result = text(&client, "#result").await;
        answers.sort_by(f64::total_cmp);
        let n = answers.len();
        let mean = answers.iter().sum::<f64>() / n as f64;
        println!(
            "{result}: {n} moves answered, mean {mean:.0} ms, median {:.0} ms, 95th percentile {:.0} ms, slowest {:.0} ms",
            answers[n / 2],
            answers[(n * 95 / 100).min(n - 1)],
            answers[n - 1]
        );
        client.close().await.unwrap();
    });
}

/// A whole game on the served page, by clicking: a setup arranged, moves
/// made (an illegal one refused with the engine's reason), battles shown,
/// the result read and the record downloaded, which `stratego view` reads.
/// Then the server's limits: a second page finds it full, a closed page
/// frees its game, bad requests get an error status.
#[test]
fn a_person_plays_a_whole_game_on_the_served_page() {
    let Some(driver) = driver() else { return };
    let dir = scratch("browser-serve");
    let served = serve(&["--agent", "random", "--max-games", "1", "--max-plies", "80", "--move-time-ms", "100"]);
    assert!(http_status(&served.url, "GET /nothing HTTP/1.1").contains(" 404"));
    assert!(http_status(&served.url, "POST / HTTP/1.1").contains(" 405"));
    assert!(http_status(&served.url, "GET /play HTTP/1.1").starts_with("HTTP/1.1 4"), "a WebSocket only");
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = browser(&driver, &dir.join("profile")).await;
        client.goto(&served.url).await.unwrap();
        until(&client, "phase === 'setup' && setup.length === 40", "a proposed setup").await;
        // Swap two pieces of the back row by clicking them (a1 and b1).
        let before: String = client.execute("return setup;", vec![]).await.unwrap().as_str().unwrap().into();
        click_square(&client, "a1").await;
        click_square(&client, "b1").await;
        let after: String = client.execute("return setup;", vec![]).await.unwrap().as_str().unwrap().into();
        let swapped: String = [&before[1..2], &before[0..1], &before[2..]].concat();
        assert_eq!(after, swapped);
        client.find(Locator::Css("#start")).await.unwrap().click().await.unwrap();
        until(&client, "phase === 'play' && seen.to_move === seen.you", "the first move").await;

        // An illegal move, by clicking: a piece into a lake.
        let legal: Vec<String> =
            serde_json::from_value(client.execute("return seen.legal;", vec![]).await.unwrap()).unwrap();
        let from = legal[0].split('-').next().unwrap().to_string();
        click_square(&client, &from).await;
        assert!(count(&client, "#board .cell.target").await >= 1, "the legal targets are shown");
        click_square(&client, "c5").await;
        until(&client, "document.getElementById('error').textContent.includes('not legal')", "the reason").await;

        // The game, one click pair a move, until the ply cap ends it.
        let battles = play_to_the_end(&client).await;
        let result = text(&client, "#result").await;
        assert!(
            result.starts_with("you win") || result.starts_with("the agent wins") || result.starts_with("a draw"),
            "{result}"
        );
        // The game is seeded (the server's seed, our moves taken in turn): its 80 plies see battles.
        assert!(battles > 0, "no battle shown in the game: {result}");
        let href = client.find(Locator::Css("#download")).await.unwrap().attr("href").await.unwrap().unwrap();
        assert!(href.starts_with("blob:"));
        let record: String = client.execute("return seen.record;", vec![]).await.unwrap().as_str().unwrap().into();
        std::fs::write(dir.join("game.txt"), &record).unwrap();
        let png = client.screenshot().await.unwrap();
        std::fs::write(screenshot_path(&dir, "serve.png"), png).unwrap();

        // The server holds one game: a second page is told it is full...
        let second = browser(&driver, &dir.join("profile2")).await;
        second.goto(&served.url).await.unwrap();
        until(&second, "document.getElementById('error').textContent.includes('holds 1 games')", "the refusal").await;
        // ... until the first page goes away and frees its game.
        client.goto("about:blank").await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        second.refresh().await.unwrap();
        until(&second, "phase === 'setup' && setup.length === 40", "a game for the second page").await;
        second.close().await.unwrap();
        client.close().await.unwrap();
    });
    let view = stratego_ok(&["view", dir.join("game.txt").to_str().unwrap()]);
    assert!(view.contains("plies"), "{view}");
    stratego_ok(&["replay", dir.join("game.txt").to_str().unwrap(), "--moves"]);
}

/// A page that says nothing for `--idle-seconds` has its game ended, and
/// is told why.
#[test]
fn an_idle_page_has_its_game_ended() {
    let Some(driver) = driver() else { return };
    let dir = scratch("browser-serve-idle");
    let served = serve(&["--agent", "random", "--idle-seconds", "1"]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let client = browser(&driver, &dir.join("profile")).await;
        start_game(&client, &served.url).await;
        until(
            &client,
            "document.getElementById('error').textContent.includes('nothing from the page for 1 s')",
            "the end",
        )
        .await;
        until(&client, "socket.readyState === WebSocket.CLOSED", "the connection closed").await;
        client.close().await.unwrap();
    });
}

/// Two tabs, two games: each page's game is its own (its own setup, its own
/// moves, its own agent), played at the same time on one server.
#[test]
fn two_pages_play_two_independent_games() {
    let Some(driver) = driver() else { return };
    let dir = scratch("browser-serve-two");
    let served = serve(&["--agent", "random", "--max-games", "2", "--max-plies", "40"]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (one, two) = (browser(&driver, &dir.join("one")).await, browser(&driver, &dir.join("two")).await);
        start_game(&one, &served.url).await;
        // The second page plays Blue: the agent opens its game.
        two.goto(&served.url).await.unwrap();
        until(&two, "phase === 'setup' && setup.length === 40", "a proposed setup").await;
        two.find(Locator::Css("#color")).await.unwrap().select_by_value("blue").await.unwrap();
        two.find(Locator::Css("#start")).await.unwrap().click().await.unwrap();
        until(&two, "phase === 'play' && seen.to_move === seen.you", "Blue's first move").await;
        assert_eq!(two.execute("return seen.you;", vec![]).await.unwrap(), "blue");
        assert_eq!(two.execute("return log.length;", vec![]).await.unwrap(), 1, "the agent moved first");
        assert_eq!(one.execute("return log.length;", vec![]).await.unwrap(), 0, "the first page's game has not begun");
        // Both to their ends, one after the other's moves.
        play_to_the_end(&two).await;
        play_to_the_end(&one).await;
        let mut records = Vec::new();
        for page in [&one, &two] {
            records.push(page.execute("return seen.record;", vec![]).await.unwrap().as_str().unwrap().to_string());
        }
        assert_ne!(records[0], records[1]);
        // Each record is the game its page showed.
        for (page, record) in [&one, &two].into_iter().zip(&records) {
            let plies = page.execute("return log.length;", vec![]).await.unwrap().as_u64().unwrap();
            let moves = record
                .lines()
                .filter(|l| l.starts_with("moves"))
                .map(|l| l.split_whitespace().count() - 1)
                .sum::<usize>();
            assert_eq!(moves as u64, plies, "the plies shown and the record's: {record}");
        }
        one.close().await.unwrap();
        two.close().await.unwrap();
    });
}
