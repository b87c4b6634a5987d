//! Matches: pairs with swapped seats, reproducible across thread counts,
//! SPRT stopping, records that replay, outputs that never overwrite.

use std::sync::atomic::{AtomicU32, Ordering};

use stratego_baselines::factory_of as factory;
use stratego_engine::{GameRecord, Ruleset};
use stratego_evaluation::arena::{play_match, play_pairs, ArenaError, MatchConfig, MatchResult, SetupMode};
use stratego_evaluation::report::{create_output_dir, write_match, MatchSummary, OutputError};
use stratego_evaluation::stats::{Sprt, SprtDecision};

fn config(games: u32, seed: u64) -> MatchConfig {
    MatchConfig::new(Ruleset::barrage(), games, seed)
}

fn play(a: &str, b: &str, config: &MatchConfig, threads: usize) -> MatchResult {
    let (a, b) = (factory(a).unwrap(), factory(b).unwrap());
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| play_match(a.as_ref(), b.as_ref(), config, &|_| {})).unwrap()
}

#[test]
fn identical_seeds_give_identical_results_with_any_thread_count() {
    let c = config(12, 42);
    let one = play("greedy", "expectimax:depth=2,nodes=200", &c, 1);
    let two = play("greedy", "expectimax:depth=2,nodes=200", &c, 2);
    let three = play("greedy", "expectimax:depth=2,nodes=200", &c, 3);
    assert_eq!(one, two);
    assert_eq!(one, three);
    assert_eq!(one.games.len(), 12);
    let other = play("greedy", "expectimax:depth=2,nodes=200", &config(12, 43), 2);
    assert_ne!(one.games, other.games, "another seed, other games");
}

#[test]
fn pairs_share_their_setups_and_swap_the_seats() {
    let swap = play("random", "greedy:setup=handcrafted", &config(8, 3), 2);
    for pair in swap.games.chunks(2) {
        assert!(pair[0].a_is_red && !pair[1].a_is_red);
        // swap: the setups stay with the seats, the players change seats.
        assert_eq!(pair[0].record.as_ref().unwrap().red, pair[1].record.as_ref().unwrap().red);
        assert_eq!(pair[0].record.as_ref().unwrap().blue, pair[1].record.as_ref().unwrap().blue);
    }
    let own = play("random", "greedy:setup=handcrafted", &MatchConfig { setups: SetupMode::Own, ..config(8, 3) }, 2);
    for pair in own.games.chunks(2) {
        // own: each player keeps its setup in both games.
        assert_eq!(pair[0].record.as_ref().unwrap().red, pair[1].record.as_ref().unwrap().blue);
        assert_eq!(pair[0].record.as_ref().unwrap().blue, pair[1].record.as_ref().unwrap().red);
    }
}

#[test]
fn every_record_replays_to_its_result() {
    let result = play("greedy", "random", &config(10, 9), 2);
    for g in &result.games {
        let parsed = GameRecord::parse(&g.record.as_ref().unwrap().to_text()).unwrap();
        let state = parsed.replay().unwrap();
        assert_eq!(state.outcome(), Some(g.outcome));
        assert_eq!(state.history().len() as u32, g.plies);
    }
}

#[test]
fn the_progress_callback_sees_every_game() {
    let (a, b) = (factory("random").unwrap(), factory("random").unwrap());
    let seen = AtomicU32::new(0);
    let result = play_match(a.as_ref(), b.as_ref(), &config(10, 1), &|_| {
        seen.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(seen.load(Ordering::Relaxed), 10);
    assert_eq!(result.games.iter().map(|g| g.index).collect::<Vec<_>>(), (0..10).collect::<Vec<_>>());
}

#[test]
fn the_sprt_stops_at_the_same_pair_with_any_thread_count() {
    let sprt = Sprt::new(0.0, 150.0, 0.05, 0.05).unwrap();
    let c = MatchConfig { sprt: Some(sprt), ..config(400, 5) };
    let one = play("greedy", "random", &c, 1);
    let two = play("greedy", "random", &c, 2);
    assert_eq!(one, two);
    assert_eq!(one.sprt_decision, Some(SprtDecision::AcceptH1), "greedy is far stronger than random");
    assert!(one.games.len() < 400, "stopped early after {} games", one.games.len());
    // The test decided at the last pair played, not before.
    let before = stratego_evaluation::stats::Pentanomial::from_pairs(
        one.pentanomial_pairs()[..one.games.len() / 2 - 1].iter().copied(),
    );
    assert_eq!(sprt.decide(&before), SprtDecision::Continue);
    assert_eq!(sprt.decide(&one.pentanomial()), SprtDecision::AcceptH1);
}

#[test]
fn odd_game_counts_are_refused() {
    let (a, b) = (factory("random").unwrap(), factory("random").unwrap());
    let err = play_match(a.as_ref(), b.as_ref(), &config(7, 1), &|_| {}).unwrap_err();
    assert!(matches!(err, ArenaError::OddGames(7)));
    assert!(err.to_string().contains("must be even"));
}

#[test]
fn outputs_hold_results_and_records_and_are_never_overwritten() {
    let dir = stratego_testkit::scratch_path("arena-out");
    let result = play("greedy", "random", &config(6, 2), 2);
    let summary = MatchSummary::of(&result);
    create_output_dir(&dir, false).unwrap();
    let json = write_match(&dir, &result, &summary).unwrap();
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(value["a"], "greedy");
    assert_eq!(value["games"].as_array().unwrap().len(), 6);
    assert_eq!(value["summary"]["a_wins"], summary.a_wins);
    for g in value["games"].as_array().unwrap() {
        let text = std::fs::read_to_string(dir.join(g["record"].as_str().unwrap())).unwrap();
        GameRecord::parse(&text).unwrap().replay().unwrap();
    }
    assert!(matches!(create_output_dir(&dir, false), Err(OutputError::Exists(_))));
    assert!(json.exists(), "the refused call left the directory alone");
    create_output_dir(&dir, true).unwrap();
    assert!(!json.exists(), "replacing was asked for");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_summary_counts_wins_draws_and_losses_from_a_side() {
    let result = play("greedy", "random", &config(20, 8), 2);
    let s = MatchSummary::of(&result);
    assert_eq!(s.a_wins + s.draws + s.a_losses, 20);
    let points: f64 = result.games.iter().map(|g| g.a_points()).sum();
    assert!((s.score - points / 20.0).abs() < 1e-12);
    assert_eq!(s.wins_by_reason.values().sum::<u32>() + s.draws_by_reason.values().sum::<u32>(), 20);
    assert!(s.score > 0.6, "greedy beats random: {}", s.score);
    assert!(s.to_text().contains("elo (A - B)"));
}

/// A streamed match hands every record to its sink as the game ends and
/// keeps none (a long match grew by the records it kept, about 1.3 MB/s);
/// the records are those the kept match has, and a sink that fails stops
/// the match with an error naming the game.
#[test]
fn a_streamed_match_keeps_no_records_and_hands_over_every_one() {
    let c = config(10, 9);
    let kept = play("greedy", "random", &c, 2);
    let (a, b) = (factory("greedy").unwrap(), factory("random").unwrap());
    let sunk = std::sync::Mutex::new(Vec::new());
    let sink = |g: &stratego_evaluation::arena::GameResult| {
        sunk.lock().unwrap().push((g.index, g.record.clone().unwrap()));
        Ok(())
    };
    let streamed =
        stratego_evaluation::arena::play_match_streaming(a.as_ref(), b.as_ref(), &c, &|_| {}, &sink).unwrap();
    assert!(streamed.games.iter().all(|g| g.record.is_none()));
    let mut sunk = sunk.into_inner().unwrap();
    sunk.sort_by_key(|(i, _)| *i);
    let records: Vec<GameRecord> = kept.games.iter().map(|g| g.record.clone().unwrap()).collect();
    assert_eq!(sunk.into_iter().map(|(_, r)| r).collect::<Vec<_>>(), records);
    let results = |m: &MatchResult| m.games.iter().map(|g| (g.index, g.outcome, g.plies)).collect::<Vec<_>>();
    assert_eq!(results(&streamed), results(&kept));

    let failing = |_: &stratego_evaluation::arena::GameResult| Err("No space left on device".to_string());
    let err =
        stratego_evaluation::arena::play_match_streaming(a.as_ref(), b.as_ref(), &c, &|_| {}, &failing).unwrap_err();
    assert!(matches!(err, ArenaError::Record { .. }) && err.to_string().contains("No space left"), "{err}");
}

/// A match split into shards (any split, played in any order, on other
/// thread counts) and put together is the match itself; shards that miss or
/// repeat a game, or lie outside the match, are refused.
#[test]
fn shards_put_together_are_the_match() {
    let c = config(14, 77);
    let whole = play("greedy", "expectimax:depth=2,nodes=200", &c, 2);
    let (a, b) = (factory("greedy").unwrap(), factory("expectimax:depth=2,nodes=200").unwrap());
    let shard = |pairs: std::ops::Range<u32>, threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| play_pairs(a.as_ref(), b.as_ref(), &c, pairs, &|_| {})).unwrap()
    };
    let (first, second) = (shard(0..3, 1), shard(3..7, 2));
    assert_eq!(first.len(), 6);
    let names = (a.name(), b.name());
    let joined = |games: Vec<_>| MatchResult::from_shards(names.0.clone(), names.1.clone(), c.clone(), games);
    let together = joined(second.iter().chain(&first).cloned().collect()).unwrap();
    assert_eq!(together, whole);

    let refused = |games: Vec<_>| joined(games).unwrap_err().to_string();
    assert!(refused(first.clone()).contains("game 6 is missing"), "{}", refused(first.clone()));
    let twice: Vec<_> = first.iter().chain(&first).chain(&second).cloned().collect();
    assert!(refused(twice).contains("game 0 is given twice"));
    let mut beyond: Vec<_> = first.iter().chain(&second).cloned().collect();
    beyond.push(stratego_evaluation::arena::GameResult { index: 14, ..first[0].clone() });
    assert!(refused(beyond).contains("game 14 is not in a match of 14 games"));
    let outside = play_pairs(a.as_ref(), b.as_ref(), &c, 5..8, &|_| {}).unwrap_err();
    assert!(matches!(outside, ArenaError::Shards(_)), "{outside}");
    let sprt = MatchConfig { sprt: Some(Sprt::new(0.0, 10.0, 0.05, 0.05).unwrap()), ..c.clone() };
    assert!(play_pairs(a.as_ref(), b.as_ref(), &sprt, 0..1, &|_| {}).is_err());
}
