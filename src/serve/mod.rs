//! `stratego serve --agent SPEC`: a local web server with a page where a
//! person arranges a setup, plays a whole game against a lab player, sees
//! each battle resolve, and downloads the record (which `view` and `replay`
//! read). Each tab's game lives on its own WebSocket: a closed tab or a
//! dropped connection ends that game and frees it; several tabs play
//! independent games; the server holds at most `--max-games` at once and
//! ends one idle for `--idle-seconds`. The agent thinks on a blocking
//! thread under `--move-time-ms`, so the server goes on answering.

mod game;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::State as Shared;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use clap::Args;
use rand::SeedableRng;
use stratego_engine::Ruleset;
use stratego_players::{AgentRng, PlayerFactory};
use tokio::sync::Semaphore;

use crate::{players, CliError, RulesArgs};
use game::{proposal, Reply, Request, Session};

const PAGE: &str = include_str!("page.html");

#[derive(Args)]
pub struct ServeArgs {
    #[arg(long, help = players::spec_help("The player a person faces"))]
    agent: String,
    /// The port (0: any free one; the line `serving on http://...` says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// The address to listen on; the default keeps the server to this machine.
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// The agent's time a move, in milliseconds. [1 to 600,000]
    #[arg(long, default_value_t = 100, value_parser = crate::count::<u64>(1, 600_000))]
    move_time_ms: u64,
    /// Games held at once; a page that finds the server full is told so. [1 to 10,000]
    #[arg(long, default_value_t = 8, value_parser = crate::count::<usize>(1, 10_000))]
    max_games: usize,
    /// A game whose page sends nothing for this long is ended. [1 to 86,400]
    #[arg(long, default_value_t = 1800, value_parser = crate::count::<u64>(1, 86_400))]
    idle_seconds: u64,
    /// Seeds the agents' randomness (each game its own stream).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    rules: RulesArgs,
}

/// What every connection shares.
struct Server {
    agent: Arc<dyn PlayerFactory>,
    rules: Ruleset,
    move_time: Duration,
    idle: Duration,
    games: Arc<Semaphore>,
    max_games: usize,
    seed: u64,
    /// Games started so far, for each game's seed.
    started: std::sync::atomic::AtomicU64,
}

pub fn run(out: &mut impl std::io::Write, args: ServeArgs) -> Result<(), CliError> {
    let agent = players::factory(&args.agent)?;
    let rules = match agent.trained_rules() {
        Some(base) if !args.rules.given() => args.rules.over(base)?,
        _ => args.rules.ruleset()?,
    };
    agent.check_rules(&rules).map_err(|why| format!("{} cannot play {rules}: {why}", agent.name()))?;
    // Built once here, so that a spec that names a missing file fails now
    // with one line, not in the first page's game.
    drop(agent.make());
    let server = Arc::new(Server {
        agent,
        rules,
        move_time: Duration::from_millis(args.move_time_ms),
        idle: Duration::from_secs(args.idle_seconds),
        games: Arc::new(Semaphore::new(args.max_games)),
        max_games: args.max_games,
        seed: args.seed,
        started: Default::default(),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the server's runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(SocketAddr::new(args.bind, args.port))
            .await
            .map_err(|e| format!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        writeln!(
            out,
            "serving on http://{addr}/ : {} at {} ms a move under {} (at most {} games; Ctrl-C stops)",
            server.agent.name(),
            args.move_time_ms,
            server.rules,
            server.max_games
        )
        .map_err(crate::output)?;
        out.flush().map_err(crate::output)?;
        let app = Router::new().route("/", get(page)).route("/play", get(play)).with_state(server);
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| CliError::from(format!("the server stopped: {e}")))
    })
}

async fn page() -> Html<String> {
    Html(PAGE.replace("{{BOARD_CSS}}", stratego_viewer::page::BOARD_CSS))
}

async fn play(ws: WebSocketUpgrade, Shared(server): Shared<Arc<Server>>) -> Response {
    ws.on_upgrade(move |socket| game_on(socket, server)).into_response()
}

async fn send(socket: &mut WebSocket, reply: &Reply) -> bool {
    match serde_json::to_string(reply) {
        Ok(text) => socket.send(Message::Text(text.into())).await.is_ok(),
        Err(_) => false,
    }
}

fn error(why: impl Into<String>) -> Reply {
    Reply::Error { why: why.into() }
}

/// One page's game, for as long as its connection lives.
async fn game_on(mut socket: WebSocket, server: Arc<Server>) {
    let Ok(_held) = server.games.clone().try_acquire_owned() else {
        let why = format!("the server holds {} games already: try again later", server.max_games);
        let _ = send(&mut socket, &error(why)).await;
        return;
    };
    let n = server.started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut rng = AgentRng::seed_from_u64(stratego_contract::seed::derive_seed(server.seed, n));
    let mut session: Option<Session> = None;
    loop {
        let message = match tokio::time::timeout(server.idle, socket.recv()).await {
            Err(_) => {
                let why = format!("nothing from the page for {} s: the game is ended", server.idle.as_secs());
                let _ = send(&mut socket, &error(why)).await;
                return;
            }
            // The page went away: the game goes with it.
            Ok(None) | Ok(Some(Err(_))) => return,
            Ok(Some(Ok(message))) => message,
        };
        let text = match message {
            Message::Text(text) => text.to_string(),
            Message::Close(_) => return,
            // Pings are answered by the library; nothing else is expected.
            _ => continue,
        };
        let reply = match serde_json::from_str::<Request>(&text) {
            Err(e) => error(format!("not a request: {e}")),
            Ok(Request::Propose) => proposal(server.rules.piece_set, &mut rng),
            Ok(Request::Start { color, setup }) => {
                let agent = server.agent.make();
                match Session::start(server.rules, &color, &setup, agent, rng.clone()) {
                    Err(why) => error(why),
                    Ok(mut s) => {
                        s.limit_agent(server.move_time);
                        let reply = agent_reply(&mut s).await;
                        session = Some(s);
                        reply
                    }
                }
            }
            Ok(Request::Move { mv }) => match session.as_mut() {
                None => error("no game yet: start one"),
                Some(s) => match s.person_moves(&mv) {
                    Err(why) => error(why),
                    Ok(()) => agent_reply(s).await,
                },
            },
            Ok(Request::Resign) => match session.as_mut() {
                None => error("no game yet: start one"),
                Some(s) => match s.resign() {
                    Err(why) => error(why),
                    Ok(()) => Reply::State(Box::new(s.seen())),
                },
            },
        };
        if !send(&mut socket, &reply).await {
            return;
        }
    }
}

/// The agent moves if it is its turn (on a blocking thread), then the page
/// is told what it sees.
async fn agent_reply(session: &mut Session) -> Reply {
    if let Some(mut turn) = session.agent_turn() {
        match tokio::task::spawn_blocking(move || {
            let decided = turn.decide();
            (turn, decided)
        })
        .await
        {
            Ok((turn, decided)) => session.agent_moved(turn, decided),
            // The agent's thread panicked: the agent is gone, and so is its game.
            Err(_) => session.agent_lost(),
        }
    }
    Reply::State(Box::new(session.seen()))
}
