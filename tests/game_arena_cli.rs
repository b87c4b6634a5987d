//! End-to-end tests of `stratego game-arena`: the generic bots in the
//! registered games.

mod common;
use common::*;

/// CoToan's 40-ply task: short games that random play nearly always draws.
const SHORT_COTOAN: &str =
    "cotoan-rules-v1:threshold=0,horizon=40,horizon-rule=score,operators=add+sub+mul+div+mod,start=red";

fn game_arena(extra: &[&str]) -> std::process::Output {
    stratego(&[&["game-arena"][..], extra].concat())
}

#[test]
fn mcts_beats_random_at_cotoan_and_the_seed_replays_the_match() {
    let args = ["--game", "cotoan", "--params", SHORT_COTOAN, "--a", "mcts:sims=100", "--b", "random", "--games", "8"];
    let o = game_arena(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("game: cotoan (threshold=0,horizon=40,"), "{text}");
    assert!(text.contains("A = mcts:sims=100,c=1.4,rollout=200, B = random: 8 games in 4 pairs"), "{text}");
    let tally = text.lines().find_map(|l| l.strip_prefix("A wins / draws / B wins: ")).expect(&text);
    let [wins, _draws, losses]: [u32; 3] =
        tally.split(" / ").map(|n| n.parse().unwrap()).collect::<Vec<_>>().try_into().unwrap();
    assert!(wins >= 5 && losses == 0, "{text}");
    // A decisive score: the lower end of the Elo interval is above zero.
    let elo = text.lines().find_map(|l| l.strip_prefix("elo (A - B): ")).expect(&text);
    let lower = elo.split(['[', ',']).nth(1).unwrap().trim();
    assert!(lower.starts_with('+') && lower != "+0.0", "{text}");
    assert_eq!(stdout(&game_arena(&args)), text, "the same seed gives the same output");
}

#[test]
fn random_bots_play_stratego_and_a_seed_changes_the_games() {
    let run = |seed: &str| {
        let o = game_arena(&[
            "--game", "stratego", "--params", "barrage", "--a", "random", "--b", "random", "--games", "4", "--seed",
            seed,
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    let text = run("1");
    assert!(text.starts_with("game: stratego (pieces=barrage,"), "{text}");
    assert!(text.contains("A = random, B = random: 4 games in 2 pairs"), "{text}");
    assert_eq!(run("1"), text);
    assert_ne!(run("2"), text);
}

#[test]
fn bad_input_is_one_error_line() {
    let base = |game: &str, a: &str| {
        vec!["--game".to_string(), game.into(), "--a".into(), a.into(), "--b".into(), "random".into()]
    };
    for (args, needle) in [
        (base("chess", "random"), "unknown game `chess`: the games are cotoan, stratego"),
        (base("cotoan", "greedy"), "--a: unknown bot `greedy`"),
        (base("cotoan", "mcts:sims=0"), "--a: mcts option sims=0: not a whole number 1 to 1000000"),
        (base("cotoan", "mcts:sims=5,sims=6"), "--a: mcts option `sims` is given twice"),
        (base("cotoan", "mcts:depth=2"), "--a: unknown mcts option `depth`"),
        (base("stratego", "mcts"), "--a: mcts plays perfect-information games only"),
        ([base("cotoan", "random"), vec!["--games".into(), "3".into()]].concat(), "--games must be even"),
        (
            [base("cotoan", "random"), vec!["--params".into(), "cotoan-rules-v1:horizon=40".into()]].concat(),
            "--params: ",
        ),
        ([base("stratego", "random"), vec!["--params".into(), "classic-ish".into()]].concat(), "--params: "),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_one_line_error(&game_arena(&args), needle);
    }
}
