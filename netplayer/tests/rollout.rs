//! A network that looks ahead by playing itself (`netrollout:PATH`): legal,
//! reproducible games, the choice it makes (the policy's favourite unless a
//! rolled-out candidate is more than the margin better), its clock, and its
//! options.

use std::path::Path;
use std::time::Duration;

use rand::SeedableRng;
use stratego_engine::Ruleset;
use stratego_model::device;
use stratego_netplayer::rollout::{RolloutFactory, RolloutOptions, Step};
use stratego_netplayer::search::ChancePrior;
use stratego_netplayer::{NetOptions, NetPlayerFactory, NetworkPlayerKind};
use stratego_players::view::InfoView;
use stratego_players::{AgentRng, Naming, PlayerSpec};

mod common;
use common::*;

#[test]
fn rollout_players_play_legal_reproducible_games_against_random_in_both_colours() {
    let options = [",worlds=2,horizon=4", ",width=2,worlds=3,horizon=0,margin=0,setup=handcrafted"];
    play_legal_reproducible_pairs("netrollout", &options, 29, |player| {
        assert_eq!(player.trained_rules(), Some(short_barrage()));
    });
}

fn trained(options: RolloutOptions) -> (RolloutFactory, NetPlayerFactory) {
    let net = NetPlayerFactory::load(Path::new(TRAINED), NetOptions::default(), &device("cpu").unwrap()).unwrap();
    (RolloutFactory::from_net(&net, options), net)
}

/// The free Captain (tests/search.rs), all 16 candidates rolled out in 6
/// worlds: with no margin the player plays the best valued candidate, and
/// that overrules the policy (here the capture, which reveals the Marshal
/// next to unknown pieces, is not it: the leaf's guard term prices that
/// exposure); with the whole value range as margin it plays the policy's
/// favourite, as `net:` does. The values are reproducible under a seed.
#[test]
fn the_rollouts_overrule_the_policy_only_beyond_the_margin() {
    let (state, history) = free_captain();
    let view = InfoView::new(&state, &history);
    for seed in 0..2 {
        let play = |margin: f64| {
            let options = RolloutOptions { width: 16, worlds: 6, margin, ..RolloutOptions::default() };
            let (factory, net) = trained(options);
            let mut player = factory.player();
            let mv = player.try_choose_move(&view, &mut AgentRng::seed_from_u64(seed)).unwrap();
            let bare = net.player().try_choose_move(&view, &mut AgentRng::seed_from_u64(seed)).unwrap();
            (mv, bare, player.last)
        };
        let (mv, bare, last) = play(0.0);
        assert_eq!(last.worlds, 6);
        assert_eq!(last.values.len(), 16);
        assert_eq!(last.values[0].0, bare, "the candidates come in the policy's order");
        let best = last.values.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!(mv, best.0, "no margin: the best valued, {:?}", last.values);
        assert!(mv != bare && last.overruled, "{:?}", last.values);
        assert!(last.values.iter().all(|v| (-1.0..=1.0).contains(&v.1)));
        let (again, _, repeat) = play(0.0);
        assert_eq!((again, &repeat.values), (mv, &last.values), "reproducible under a seed");
        let (mv, bare, last) = play(2.0);
        assert_eq!(mv, bare, "the whole range as margin: the policy decides");
        assert!(!last.overruled);
    }
}

/// `veto=M`: expectimax searches every root move first, and the rollouts
/// choose among the policy's favourites of the moves it values within M of
/// the best. In the free Captain the search sees one best move (the Marshal
/// takes the Captain) and the policy prefers others: with no margin that
/// move is played without a rollout; with the whole range as margin nothing
/// is vetoed and the candidates are the policy's favourites, as without a
/// veto; in between (as in tests/guided.rs) some moves are vetoed and
/// more than one stays.
#[test]
fn a_veto_leaves_the_rollouts_the_moves_the_search_values_near_the_best() {
    let (state, history) = free_captain();
    let view = InfoView::new(&state, &history);
    let take = take_the_captain();
    let play = |veto: Option<f64>| {
        let options = RolloutOptions { width: 8, worlds: 2, horizon: 2, veto, ..RolloutOptions::default() };
        let mut player = trained(options).0.player();
        let mv = player.try_choose_move(&view, &mut AgentRng::seed_from_u64(4)).unwrap();
        (mv, player.last)
    };
    let (mv, last) = play(Some(0.0));
    assert_eq!(mv, take, "{last:?}");
    assert!(last.worlds == 0 && last.values.is_empty(), "one move left: no rollout, {last:?}");
    assert!(last.veto_first && last.vetoed == view.legal_moves.len() - 1 && last.veto_depth >= 1, "{last:?}");

    let (_, unvetoed) = play(None);
    let (_, last) = play(Some(2.0));
    assert!(last.vetoed == 0 && !last.veto_first, "{last:?}");
    let moves = |values: &[(stratego_engine::Move, f64, f32)]| values.iter().map(|v| v.0).collect::<Vec<_>>();
    assert_eq!(moves(&last.values), moves(&unvetoed.values), "the policy's favourites");
    assert!(unvetoed.values[0].0 != take && unvetoed.vetoed == 0);

    // The next best move lies 0.08 of a won game below the capture (tests/guided.rs).
    let (_, last) = play(Some(0.1));
    assert!(last.vetoed > 0 && last.values.len() > 1, "{last:?}");
    assert!(last.values.windows(2).all(|w| w[0].2 >= w[1].2), "policy order");
}

/// The search that trusts the heads, on the free Captain: the value head in
/// the leaf (`value`), worlds from the belief head (`prior=belief`) and the
/// mirror step (`step=mirror`) each change the values or the choice,
/// reproducibly under a seed; the values stay a share of a won game; with a
/// large `eta` the mirror step plays the best valued, with `eta=0` it draws
/// among the candidates by the policy alone.
#[test]
fn the_value_head_the_belief_and_the_mirror_step_change_the_search_reproducibly() {
    let (state, history) = free_captain();
    let view = InfoView::new(&state, &history);
    let play = |options: RolloutOptions, seed: u64| {
        let options = RolloutOptions { width: 6, worlds: 4, horizon: 4, margin: 0.0, ..options };
        let mut player = trained(options).0.player();
        let mv = player.try_choose_move(&view, &mut AgentRng::seed_from_u64(seed)).unwrap();
        (mv, player.last)
    };
    let (_, hand) = play(RolloutOptions::default(), 6);
    for options in [
        RolloutOptions { value: 1.0, ..RolloutOptions::default() },
        RolloutOptions { value: 0.5, ..RolloutOptions::default() },
        RolloutOptions { prior: ChancePrior::Belief, ..RolloutOptions::default() },
        RolloutOptions { prior: ChancePrior::Belief, pool: 0.5, ..RolloutOptions::default() },
    ] {
        let (mv, last) = play(options, 6);
        let (again, repeat) = play(options, 6);
        assert_eq!((again, &repeat.values), (mv, &last.values), "reproducible under a seed: {options:?}");
        assert!(last.values != hand.values, "{options:?} changed no value: {:?}", last.values);
        assert!(last.values.iter().all(|v| (-1.0..=1.0).contains(&v.1)), "{:?}", last.values);
        assert_eq!(last.worlds, 4);
        if options.value > 0.0 {
            assert!(last.reads.positions > hand.reads.positions, "the leaves are read by the network: {last:?}");
        }
    }
    let (mv, last) = play(RolloutOptions { step: Step::Mirror { eta: 1000.0 }, ..RolloutOptions::default() }, 6);
    let best = last.values.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
    assert_eq!(mv, best.0, "a large eta: the best valued, {:?}", last.values);
    let drawn: std::collections::HashSet<_> = (0..40)
        .map(|seed| play(RolloutOptions { step: Step::Mirror { eta: 0.0 }, ..RolloutOptions::default() }, seed).0)
        .collect();
    assert!(drawn.len() > 1, "eta=0 draws from the policy: {drawn:?}");
}

/// `reply=T`: the opponent's moves in the rollouts drawn at a temperature
/// give other values than its favourites, reproducibly under a seed.
#[test]
fn drawn_replies_change_the_values_reproducibly() {
    let (state, history) = free_captain();
    let view = InfoView::new(&state, &history);
    let values = |reply: f32| {
        let options = RolloutOptions { width: 8, worlds: 4, reply, ..RolloutOptions::default() };
        let mut player = trained(options).0.player();
        player.try_choose_move(&view, &mut AgentRng::seed_from_u64(5)).unwrap();
        player.last.values
    };
    let drawn = values(1.0);
    assert_eq!(drawn, values(1.0), "reproducible under a seed");
    assert!(drawn != values(0.0), "{drawn:?}");
}

/// `sure=Z`: from one world the spread of the gains cannot be estimated, so
/// with any Z the policy decides where without it the best valued overrules.
#[test]
fn an_unsure_gain_does_not_overrule() {
    let (state, history) = free_captain();
    let view = InfoView::new(&state, &history);
    let play = |sure: f64| {
        let options = RolloutOptions { width: 16, worlds: 1, margin: 0.0, sure, ..RolloutOptions::default() };
        let (factory, net) = trained(options);
        let mut player = factory.player();
        let mv = player.try_choose_move(&view, &mut AgentRng::seed_from_u64(3)).unwrap();
        let bare = net.player().try_choose_move(&view, &mut AgentRng::seed_from_u64(3)).unwrap();
        (mv, bare, player.last)
    };
    let (mv, bare, last) = play(0.0);
    assert!(mv != bare && last.overruled, "{:?}", last.values);
    let (mv, bare, last) = play(0.5);
    assert_eq!(mv, bare);
    assert!(!last.overruled);
}

/// Through a game against random moves: every decision is the policy's
/// favourite (the bare network's move) or a candidate valued more than the
/// margin above it, and the rollouts do overrule some decisions.
#[test]
fn every_decision_is_the_favourite_or_clearly_better() {
    let rules = Ruleset { max_plies: 400, ..Ruleset::classic() };
    // Short rollouts keep the test quick in the debug build.
    let options = RolloutOptions { worlds: 2, horizon: 2, margin: 0.02, ..RolloutOptions::default() };
    let (factory, net) = trained(options);
    let mut player = factory.player();
    let mut bare = net.player();
    let (mut decisions, mut overruled) = (0, 0);
    red_against_random(rules, 7, 60, |view, rng| {
        let mv = player.try_choose_move(view, rng).unwrap();
        if view.legal_moves.len() > 1 {
            let last = &player.last;
            let favourite = bare.try_choose_move(view, rng).unwrap();
            assert_eq!(last.values[0].0, favourite);
            assert_eq!(last.values.len(), options.width.min(view.legal_moves.len()));
            assert!(last.values.windows(2).all(|w| w[0].2 >= w[1].2), "policy order");
            let chosen = last.values.iter().find(|v| v.0 == mv).unwrap();
            if mv == favourite {
                let best = last.values.iter().map(|v| v.1).fold(f64::NEG_INFINITY, f64::max);
                assert!(best - last.values[0].1 <= options.margin, "{:?}", last.values);
            } else {
                assert!(chosen.1 - last.values[0].1 > options.margin, "{:?}", last.values);
                assert!(last.values.iter().all(|v| v.1 <= chosen.1), "the best valued");
            }
            assert_eq!(last.overruled, mv != favourite);
            decisions += 1;
            overruled += last.overruled as u32;
        }
        mv
    });
    eprintln!("{decisions} decisions, {overruled} overruled");
    assert!(decisions >= 20 && overruled > 0, "{decisions} {overruled}");
}

/// Under a clock a decision stays within it, with a margin for a loaded
/// test machine, and the first group of worlds is always rolled out where
/// there are candidates to compare; with a veto too, its search first.
#[test]
fn the_clock_bounds_every_decision() {
    let rules = Ruleset { max_plies: 400, ..Ruleset::classic() };
    for veto in [None, Some(0.3)] {
        let (factory, _) = trained(RolloutOptions { worlds: 256, veto, ..RolloutOptions::default() });
        let mut player = factory.player();
        stratego_players::Player::limit_move_time(&mut player, Duration::from_millis(100));
        assert_eq!(player.options().time, Some(Duration::from_millis(100)));
        let (mut longest, mut searched) = (Duration::ZERO, 0);
        red_against_random(rules, 3, 40, |view, rng| {
            let start = std::time::Instant::now();
            let mv = player.try_choose_move(view, rng).unwrap();
            longest = longest.max(start.elapsed());
            let last = &player.last;
            if view.legal_moves.len() > 1 {
                // The first group is always rolled out, the clock ends the rest.
                let compared = last.values.len() > 1;
                assert!(!compared || (last.worlds >= 2 && last.worlds < 256), "{last:?}");
                assert_eq!(last.veto_depth > 0, veto.is_some(), "{last:?}");
                searched += compared as u32;
            }
            mv
        });
        eprintln!("veto {veto:?}: longest decision under a 100 ms limit: {longest:?}, {searched} rolled out");
        assert!(longest < Duration::from_millis(400), "{longest:?}");
        assert!(searched >= 10, "{searched}");
    }
}

#[test]
fn options_parse_canonically_and_bad_ones_are_errors() {
    let parse = |text: &str| RolloutOptions::parse(&text.parse::<PlayerSpec>().unwrap());
    let parsed = parse(
        "netrollout:x,width=3,worlds=5,horizon=12,margin=0.2,sure=2,reply=1,veto=0.3,time=50,setup=handcrafted-v2",
    )
    .unwrap();
    assert_eq!((parsed.width, parsed.worlds, parsed.horizon, parsed.margin, parsed.sure), (3, 5, 12, 0.2, 2.0));
    assert_eq!((parsed.reply, parsed.veto), (1.0, Some(0.3)));
    assert_eq!(parsed.time, Some(Duration::from_millis(50)));
    let named = |options: &RolloutOptions, naming| options.spec("x", naming).to_string();
    let all =
        "netrollout:x,width=3,worlds=5,horizon=12,margin=0.2,sure=2,reply=1,veto=0.3,time=50,setup=handcrafted-v2";
    assert_eq!(named(&parsed, Naming::Canonical), all);
    assert_eq!(named(&parsed, Naming::Resolved), all, "every option given: the canonical name is the resolved one");
    assert_eq!(parse("netrollout:x,veto=0").unwrap().veto, Some(0.0), "a veto of 0 is not no veto");
    assert_eq!(parse("netrollout:x").unwrap(), RolloutOptions::default());
    assert_eq!(named(&RolloutOptions::default(), Naming::Canonical), "netrollout:x");
    let resolved = named(&RolloutOptions::default(), Naming::Resolved);
    assert_eq!(resolved, "netrollout:x,width=4,worlds=8,horizon=8,margin=0.1,sure=0,reply=0,setup=random");
    assert_eq!(parse(&resolved).unwrap(), RolloutOptions::default());
    // The search that trusts the heads: named whenever it is asked for.
    let trusting = "netrollout:x,value=0.5,prior=belief,step=mirror,eta=20";
    let parsed = parse(trusting).unwrap();
    assert_eq!((parsed.value, parsed.prior, parsed.step), (0.5, ChancePrior::Belief, Step::Mirror { eta: 20.0 }));
    assert_eq!(named(&parsed, Naming::Canonical), trusting);
    assert!(
        named(&parsed, Naming::Resolved).ends_with("reply=0,value=0.5,prior=belief,step=mirror,eta=20,setup=random")
    );
    assert_eq!(parse("netrollout:x,step=mirror").unwrap().step, Step::Mirror { eta: 50.0 }, "Ataraxos' eta");
    assert_eq!(parse("netrollout:x,step=margin,value=0,prior=counting").unwrap(), RolloutOptions::default());
    let pooled = parse("netrollout:x,prior=belief,pool=0.25").unwrap();
    assert_eq!((pooled.prior, pooled.pool), (ChancePrior::Belief, 0.25));
    assert_eq!(named(&pooled, Naming::Canonical), "netrollout:x,prior=belief,pool=0.25");
    bad_options_are_errors(
        "netrollout",
        &[
            ("width=0", "bad value `0` for option `width`"),
            ("width=17", "bad value `17`"),
            ("worlds=0", "bad value `0` for option `worlds`"),
            ("horizon=-1", "bad value `-1` for option `horizon`"),
            ("margin=3", "bad value `3` for option `margin`"),
            ("margin=nan", "bad value `nan`"),
            ("sure=11", "bad value `11` for option `sure`"),
            ("sure=-1", "bad value `-1` for option `sure`"),
            ("reply=inf", "bad value `inf` for option `reply`"),
            ("reply=11", "bad value `11` for option `reply`"),
            ("veto=3", "bad value `3` for option `veto`"),
            ("veto=nan", "bad value `nan` for option `veto`"),
            ("time=0", "bad value `0` for option `time`"),
            ("temperature=1", "player `netrollout` has no option `temperature`"),
            ("value=1.5", "bad value `1.5` for option `value`"),
            ("value=nan", "bad value `nan` for option `value`"),
            ("prior=uniform", "bad value `uniform` for option `prior`: expected belief or counting"),
            ("step=mmd", "bad value `mmd` for option `step`: expected margin or mirror"),
            ("eta=10", "eta is the mirror step's: name step=mirror with it"),
            ("pool=0.5", "pool is the belief's: name prior=belief with it"),
            ("prior=belief,pool=2", "bad value `2` for option `pool`"),
            ("step=mirror,eta=-1", "bad value `-1` for option `eta`"),
            ("step=mirror,eta=2000", "bad value `2000` for option `eta`"),
        ],
    );
    registry_names_and_load_errors("netrollout", "horizon=4,setup=handcrafted-v2");
}

#[test]
fn another_piece_set_is_refused_and_a_foreign_view_is_an_error_not_a_panic() {
    another_piece_set_is_refused(&format!("netrollout:{TRAINED}"), "netrollout");
}
