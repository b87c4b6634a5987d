//! The network as an arena player: `net:PATH` specs, legal and reproducible
//! games, the policy in the acting player's frame, and clear errors.

use std::sync::Arc;

use rand::SeedableRng;
use stratego_engine::{observe, Layout, Ruleset, Setup, State, NUM_ACTIONS};
use stratego_evaluation::arena::{play_match, ArenaError, MatchConfig};
use stratego_model::{device, infer};
use stratego_netplayer::{NetOptions, NetPlayerFactory};
use stratego_players::view::{InfoView, PublicPly};
use stratego_players::SpecError;
use stratego_players::{AgentRng, PlayerFactory};

mod common;
use common::*;

/// The command line's way: networks loaded on a CPU device made on demand.
fn factory(text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
    let mut registry = stratego_baselines::registry();
    stratego_netplayer::register(&mut registry, None);
    registry.factory(text)
}

#[test]
fn checkpoints_play_legal_reproducible_arena_games_in_both_layouts() {
    play_legal_reproducible_pairs("net", &["", ",temperature=1,setup=handcrafted"], 11, |_| ());
}

/// A network plays every ruleset with its piece set: trained under the
/// short Barrage rules, it plays whole games (to the end or the cap) under
/// rules without the two-square and more-squares rules and with other caps,
/// keeping its own progress rules for its own moves. Its counter planes are
/// the match's (docs/OBSERVATIONS.md): at the match's cap, the fraction is 1.
#[test]
fn a_network_plays_rulesets_that_differ_only_in_progress_rules_and_caps() {
    let scratch = Scratch::new("other-rules");
    let path = scratch.0.join("net.safetensors");
    checkpoint(&path, Layout::Compact, short_barrage());
    let net = build(&format!("net:{}", path.display())).unwrap();
    let random = factory("random").unwrap();
    for rules in [
        Ruleset {
            two_square_limit: 0,
            chase_rule: false,
            max_plies: 60,
            max_battleless_plies: u32::MAX,
            ..short_barrage()
        },
        Ruleset { max_plies: 24, max_battleless_plies: 10, ..short_barrage() },
    ] {
        net.check_rules(&rules).expect("only progress rules and caps differ");
        let result = short_match(net.as_ref(), random.as_ref(), rules, 5);
        assert!(result.games.iter().all(|g| g.plies > 0 && g.plies <= rules.max_plies), "{rules}");
        let mut player =
            stratego_netplayer::NetPlayerFactory::load(&path, NetOptions::default(), &device("cpu").unwrap())
                .unwrap()
                .player();
        let mut rng = AgentRng::seed_from_u64(1);
        let (red, blue) = (Setup::random(rules.piece_set, &mut rng), Setup::random(rules.piece_set, &mut rng));
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        let mut history: Vec<PublicPly> = Vec::new();
        while !state.is_terminal() {
            let view = InfoView::new(&state, &history);
            let mv = player.try_choose_move(&view, &mut rng).unwrap();
            state.apply_move(mv).unwrap();
            history = stratego_players::view::public_history(&state);
        }
        let planes = observe(&state, Layout::Compact);
        let ply_plane = Layout::Compact.group("ply_fraction").unwrap().start;
        let fraction = planes[ply_plane * 100];
        let expected = state.ply() as f32 / rules.max_plies as f32;
        assert!((fraction - expected).abs() < 1e-6, "{rules}: {fraction} vs {expected}");
    }
}

/// The player's policy is the network's on the true state: the rebuilt
/// planes are the true ones and the legal moves map to the right ids for
/// both colours (Blue's frame is rotated).
#[test]
fn the_policy_is_the_networks_on_the_true_state_for_both_colours() {
    let rules = short_barrage();
    let dev = device("cpu").unwrap();
    for layout in Layout::ALL {
        let net = tiny_net(layout, 5);
        // A clone shares the weights (burn initialises parameters lazily, so
        // two nets built from one seed need not be equal).
        let factory = NetPlayerFactory::from_network(net.clone(), layout, rules, NetOptions::default());
        assert_eq!(factory.name(), "net:in-memory");
        let mut player = factory.player();
        let mut rng = AgentRng::seed_from_u64(8);
        let red = Setup::random(rules.piece_set, &mut rng);
        let blue = Setup::random(rules.piece_set, &mut rng);
        let mut state = State::from_setups(rules, &red, &blue).unwrap();
        let mut history: Vec<PublicPly> = Vec::new();
        let mut checked = [0; 2];
        while !state.is_terminal() && state.ply() < 12 {
            let view = InfoView::new(&state, &history);
            let truth = infer(&net, layout, &observe(&state, layout), &state.legal_action_mask(), &dev).unwrap();
            let probabilities = player.move_probabilities(&view, &mut rng).unwrap();
            for (mv, p) in view.legal_moves.iter().zip(&probabilities) {
                let id = mv.to_action(state.to_move()).unwrap() as usize;
                assert_eq!(*p, truth.policy[id], "{layout}, ply {}, {mv}", state.ply());
            }
            assert!((probabilities.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            // At temperature 0 the player takes the most likely move.
            let chosen = player.try_choose_move(&view, &mut rng).unwrap();
            let best = truth.policy.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).unwrap().0;
            assert_eq!(chosen.to_action(state.to_move()), Some(best as u16));
            assert_eq!(truth.policy.len(), NUM_ACTIONS);
            checked[state.to_move().index()] += 1;
            state.apply_move(chosen).unwrap();
            history.push(PublicPly::of(state.history().last().unwrap()));
        }
        assert!(checked.iter().all(|&n| n >= 3), "both colours checked: {checked:?}");
    }
}

#[test]
fn an_in_memory_network_plays_matches() {
    let rules = short_barrage();
    let options = NetOptions { temperature: 0.5, ..NetOptions::default() };
    let net = NetPlayerFactory::from_network(tiny_net(Layout::Compact, 1), Layout::Compact, rules, options)
        .named("net:current");
    assert_eq!(net.name(), "net:current");
    let result = short_match(&net, factory("greedy").unwrap().as_ref(), rules, 4);
    assert_eq!(result.a, "net:current");
    assert_eq!(result.games.len(), 2);
}

#[test]
fn missing_bad_and_foreign_checkpoints_are_clear_errors() {
    let scratch = Scratch::new("errors");
    let missing = scratch.0.join("missing.safetensors");
    let err = build(&format!("net:{}", missing.display())).err().unwrap().to_string();
    assert!(err.contains(&format!("cannot load player `net:{}`: cannot read", missing.display())), "{err}");
    assert!(err.contains("cannot read"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");

    let garbage = scratch.0.join("garbage.safetensors");
    std::fs::write(&garbage, b"not a checkpoint").unwrap();
    let err = build(&format!("net:{}", garbage.display())).err().unwrap().to_string();
    assert!(err.contains("not a safetensors file"), "{err}");

    let path = scratch.0.join("classic.safetensors");
    let classic = Ruleset { max_plies: 40, ..Ruleset::classic() };
    checkpoint(&path, Layout::Compact, classic);
    let text = format!("net:{}", path.display());
    let err = build(&format!("{text},depth=3")).err().unwrap().to_string();
    assert!(err.contains("player `net` has no option `depth`"), "{err}");
    let err = build(&format!("{text},temperature=-1")).err().unwrap().to_string();
    assert!(err.contains("bad value `-1` for option `temperature`"), "{err}");

    // A checkpoint trained for other rules refuses the match before any game.
    let net = build(&text).unwrap();
    let config = MatchConfig::new(short_barrage(), 2, 1);
    let err = play_match(net.as_ref(), factory("random").unwrap().as_ref(), &config, &|_| {}).unwrap_err();
    assert!(matches!(err, ArenaError::Rules { .. }), "{err}");
    let err = err.to_string();
    assert!(err.contains(&classic.id().to_string()) && err.contains(&short_barrage().id().to_string()), "{err}");

    // The command line's helper parses, loads on the CPU, and leaves other specs alone.
    assert_eq!(factory("greedy").unwrap().name(), "greedy");
    assert_eq!(factory(&text).unwrap().name(), text);
    assert!(factory("net:").is_err());
}
