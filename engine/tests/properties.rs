//! Properties that must hold in every game, checked over thousands of seeded
//! random games with the full rules.

use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::playout::random_game;
use stratego_engine::{BattleResult, Color, GameRecord, Move, PieceSet, Ruleset, Setup, State};

fn army(state: &State, color: Color) -> usize {
    state.board().counts(color).iter().map(|&c| c as usize).sum()
}

/// Plays one seeded random game, checking the per-ply properties as it goes,
/// and every `deep_every` plies the expensive ones (serialize round trip,
/// colour-swapped mirror, every legal action applied to a clone).
fn check_game(rules: Ruleset, seed: u64, deep_every: u32) -> State {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let red = Setup::random(rules.piece_set, &mut rng);
    let blue = Setup::random(rules.piece_set, &mut rng);
    let mut state = State::from_setups(rules, &red, &blue).unwrap();
    while !state.is_terminal() {
        let player = state.to_move();
        let moves = state.legal_moves();
        assert!(!moves.is_empty());
        for mv in &moves {
            assert!(!mv.to.is_lake(), "{mv} enters a lake");
            assert!(state.board()[mv.to].is_none_or(|p| p.color != player), "{mv} lands on an own piece");
            assert!(state.board()[mv.from].is_some_and(|p| p.color == player && p.kind.is_movable()));
        }
        let actions = state.legal_actions();
        assert!(actions.windows(2).all(|w| w[0] < w[1]), "legal actions are sorted and distinct");
        let mut decoded: Vec<Move> = actions.iter().map(|&a| Move::from_action(a, player).unwrap()).collect();
        let mut sorted_moves = moves.clone();
        decoded.sort();
        sorted_moves.sort();
        assert_eq!(decoded, sorted_moves, "action ids decode to exactly the legal moves");
        let mask = state.legal_action_mask();
        assert_eq!(mask.iter().filter(|&&m| m).count(), actions.len());

        if state.ply().is_multiple_of(deep_every) {
            let text = state.serialize();
            assert_eq!(State::deserialize(&text).unwrap(), state, "serialize/deserialize round trip");
            let mirror = state.color_swapped();
            assert_eq!(mirror.legal_actions(), actions, "the colour-swapped mirror has the same action ids");
            assert_eq!(mirror.to_move(), player.opponent());
            for &a in &actions {
                let mut child = state.clone();
                child.apply_action(a).unwrap();
            }
            for (a, &legal) in mask.iter().enumerate() {
                let m = Move::from_action(a as u16, player).unwrap();
                assert_eq!(state.refusal(m).is_none(), legal, "refusal gives a reason exactly for illegal {m}");
            }
        }

        let before = [army(&state, Color::Red), army(&state, Color::Blue)];
        let clone = state.clone();
        assert_eq!(clone, state, "clone is an exact copy");
        let mv = state.sample_legal_move(&mut rng).unwrap();
        assert!(moves.contains(&mv), "the sampler returns a legal move");
        state.apply_move(mv).unwrap();
        let after = [army(&state, Color::Red), army(&state, Color::Blue)];
        let record = state.history().last().unwrap();
        let (me, them) = (player.index(), player.opponent().index());
        let (lost_me, lost_them) = match record.battle.map(|b| b.result) {
            None => (0, 0),
            Some(BattleResult::AttackerWins) => (0, 1),
            Some(BattleResult::DefenderWins) => (1, 0),
            Some(BattleResult::BothRemoved) => (1, 1),
        };
        assert_eq!(before[me] - after[me], lost_me, "pieces fall only by battles");
        assert_eq!(before[them] - after[them], lost_them, "pieces fall only by battles");
        let lost_total: usize =
            Color::BOTH.iter().map(|&c| state.lost(c).iter().map(|&n| n as usize).sum::<usize>()).sum();
        assert_eq!(lost_total, state.deaths().len(), "every lost piece has a recorded death");
        let moved = state.board()[mv.to].filter(|p| p.color == player);
        if let Some(p) = moved {
            assert!(p.moved, "a piece that moved is marked as moved");
            assert!(p.revealed || (record.battle.is_none() && mv.distance() == 1), "runs and battles reveal");
        }
    }
    let outcome = state.outcome().unwrap();
    assert!(state.legal_actions().is_empty());
    assert_eq!(state.current_player(), None);
    let returns = state.returns();
    assert_eq!(returns[0] + returns[1], 0.0, "zero-sum");
    assert_eq!(returns[0] != 0.0, outcome.winner.is_some());
    state
}

#[test]
fn thousands_of_classic_games_keep_the_invariants() {
    let rules = Ruleset::classic();
    let mut plies = 0;
    for seed in 0..1000 {
        plies += check_game(rules, seed, 211).ply();
    }
    assert!(plies > 100_000, "the games are real games ({plies} plies)");
}

#[test]
fn barrage_and_rule_variants_keep_the_invariants() {
    let variants = [
        Ruleset::barrage(),
        Ruleset { two_square_limit: 5, ..Ruleset::classic() },
        Ruleset { two_square_limit: 0, chase_rule: false, ..Ruleset::classic() },
        Ruleset { max_plies: 300, max_battleless_plies: 40, ..Ruleset::classic() },
    ];
    for (i, rules) in variants.into_iter().enumerate() {
        for seed in 0..300 {
            check_game(rules, 10_000 * (i as u64 + 1) + seed, 97);
        }
    }
}

#[test]
fn the_same_seed_gives_the_same_game_and_records_replay_it() {
    for seed in 0..50 {
        let rules = Ruleset::classic();
        let a = random_game(rules, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
        let b = random_game(rules, &mut Xoshiro256PlusPlus::seed_from_u64(seed));
        assert_eq!(a, b);
        let text = a.to_text();
        let parsed = GameRecord::parse(&text).unwrap();
        assert_eq!(parsed, a);
        let replayed = parsed.replay().unwrap();
        assert_eq!(replayed.outcome(), a.result);
        assert_eq!(replayed.history().len(), a.moves.len());
    }
    let differ = (0..20).any(|seed| {
        random_game(Ruleset::classic(), &mut Xoshiro256PlusPlus::seed_from_u64(seed))
            != random_game(Ruleset::classic(), &mut Xoshiro256PlusPlus::seed_from_u64(seed + 1))
    });
    assert!(differ, "different seeds give different games");
}

#[test]
fn random_games_end_in_every_way_they_can() {
    // Short caps make draws by both caps common in classic games; Barrage
    // armies are small enough that random play often strands one.
    let variants = [Ruleset { max_plies: 400, max_battleless_plies: 60, ..Ruleset::classic() }, Ruleset::barrage()];
    let mut reasons = std::collections::BTreeSet::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(99);
    for rules in variants {
        for _ in 0..1000 {
            let record = random_game(rules, &mut rng);
            let outcome = record.result.unwrap();
            let plies = record.moves.len() as u32;
            match outcome.reason {
                stratego_engine::EndReason::PlyCap => assert_eq!(plies, rules.max_plies),
                stratego_engine::EndReason::BattlelessCap => assert!(plies >= rules.max_battleless_plies),
                _ => assert!(plies <= rules.max_plies),
            }
            reasons.insert(outcome.reason.name());
        }
    }
    for reason in ["flag-captured", "no-legal-move", "ply-cap", "battleless-cap"] {
        assert!(reasons.contains(reason), "no random game ended by {reason}: {reasons:?}");
    }
}

/// Draws `2000 * n` samples and checks each of the n legal moves comes up
/// about 2000 times (6 standard deviations is about 270).
fn assert_uniform(state: &State, rng: &mut impl Rng) {
    let moves = state.legal_moves();
    let draws = 2000 * moves.len();
    let mut counts = std::collections::HashMap::new();
    for _ in 0..draws {
        *counts.entry(state.sample_legal_move(rng).unwrap()).or_insert(0usize) += 1;
    }
    assert_eq!(counts.len(), moves.len(), "every legal move is drawn, and only those");
    for mv in &moves {
        let n = counts[mv] as f64;
        assert!((n - 2000.0).abs() < 270.0, "{mv} drawn {n} times of {draws}");
    }
}

/// The sampler draws every legal move with the same probability, also when
/// the two-square rule removes some of the movement-rule moves (the
/// rejection path).
#[test]
fn sampled_moves_are_uniform_over_legal_moves() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut state = State::from_setups(
        Ruleset::classic(),
        &Setup::random(PieceSet::Classic, &mut rng),
        &Setup::random(PieceSet::Classic, &mut rng),
    )
    .unwrap();
    for _ in 0..120 {
        let mv = state.sample_legal_move(&mut rng).unwrap();
        state.apply_move(mv).unwrap();
    }
    assert_uniform(&state, &mut rng);

    // A Scout on a1 has shuttled a1-a3, a3-a2, a2-a4: the two-square rule
    // now forbids its runs back past a3, and the sampler must skip them.
    let rules = Ruleset::classic().canonical();
    let text = format!(
        "{rules} o........f/........../........../........../..~~..~~../..~~..~~../........../........../........../O........F red 0 0 \
         moves a1-a3 a10-b10 a3-a2 b10-a10 a2-a4 a10-b10"
    );
    let state = State::deserialize(&text).unwrap();
    let moves: Vec<String> = state.legal_moves().iter().map(|m| m.to_string()).collect();
    assert!(moves.contains(&"a4-a3".to_string()) && !moves.contains(&"a4-a2".to_string()), "{moves:?}");
    assert_uniform(&state, &mut rng);
}
