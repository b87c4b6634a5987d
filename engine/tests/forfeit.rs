//! A forfeit ends a game by a referee's decision: the other side wins by
//! `forfeit`, and records and serialized states carry it exactly.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::{Color, EndReason, Error, GameRecord, Outcome, PieceSet, Ruleset, Setup, State, VecEnv};

fn game(plies: usize) -> (Setup, Setup, State) {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let (red, blue) = (Setup::random(PieceSet::Classic, &mut rng), Setup::random(PieceSet::Classic, &mut rng));
    let mut state = State::from_setups(Ruleset::referee(), &red, &blue).unwrap();
    for _ in 0..plies {
        let mv = state.sample_legal_move(&mut rng).unwrap();
        state.apply_move(mv).unwrap();
    }
    (red, blue, state)
}

#[test]
fn either_side_may_forfeit_and_the_other_wins() {
    for loser in [Color::Red, Color::Blue] {
        let (_, _, mut state) = game(7);
        state.forfeit(loser).unwrap();
        assert_eq!(state.outcome(), Some(Outcome { winner: Some(loser.opponent()), reason: EndReason::Forfeit }));
        assert!(state.is_terminal() && state.legal_moves().is_empty());
        assert!(matches!(state.forfeit(loser.opponent()), Err(Error::GameOver)), "a finished game is not forfeited");
        assert_eq!(state.outcome().unwrap().to_string(), format!("{}-wins forfeit", loser.opponent()));
    }
}

#[test]
fn a_forfeit_survives_serialization_and_records() {
    for plies in [0, 9] {
        let (red, blue, mut state) = game(plies);
        state.forfeit(Color::Blue).unwrap();
        let text = state.serialize();
        assert!(text.ends_with(" forfeit blue"), "{text}");
        let back = State::deserialize(&text).unwrap();
        assert_eq!((back.outcome(), back.ply()), (state.outcome(), state.ply()));
        assert_eq!(back.serialize(), text);
        let record = GameRecord::new(*state.rules(), red, blue, &state);
        let parsed = GameRecord::parse(&record.to_text()).unwrap();
        assert_eq!(parsed.replay().unwrap().outcome(), state.outcome());
    }
    // A serialized forfeit names a side.
    let (_, _, state) = game(3);
    assert!(State::deserialize(&format!("{} forfeit green", state.serialize())).is_err());
    assert!(State::deserialize(&format!("{} forfeit", state.serialize())).is_err());
}

/// A batch seats a player's own setup before a game's first ply and no
/// later, and a forfeit in a batch ends that game only, with its record,
/// and starts the next one in its slot.
#[test]
fn a_batch_seats_own_setups_before_the_first_ply_and_forfeits_one_game() {
    let mut env = VecEnv::new(Ruleset::referee(), 2, 3).unwrap();
    let (own, _, _) = game(0);
    env.seat_setup(1, Color::Blue, own.clone()).unwrap();
    let fresh = env.state(1).unwrap().clone();
    let other = env.state(0).unwrap().clone();
    assert!(matches!(env.seat_setup(2, Color::Red, own.clone()), Err(Error::NoSuchGame { game: 2, batch: 2 })));
    let barrage = Setup::random(PieceSet::Barrage, &mut Xoshiro256PlusPlus::seed_from_u64(1));
    assert!(matches!(env.seat_setup(1, Color::Red, barrage), Err(Error::Setup { color: Color::Red, .. })));
    assert_eq!(env.state(1).unwrap().serialize(), fresh.serialize(), "a refused setup changes nothing");
    let mut actions = vec![0; 2];
    env.sample_actions(&mut actions).unwrap();
    let mut finished = Vec::new();
    env.step(&actions, &mut finished).unwrap();
    assert!(matches!(env.seat_setup(1, Color::Red, own.clone()), Err(Error::GameBegun)));
    let played = env.state(1).unwrap().clone();
    let ended = env.forfeit(1, Color::Blue).unwrap();
    assert_eq!((ended.env, ended.outcome.winner, ended.outcome.reason), (1, Some(Color::Red), EndReason::Forfeit));
    assert_eq!((&ended.record.blue, ended.record.moves.len()), (&own, 1), "the seated setup and the ply played");
    assert_eq!(ended.record.replay().unwrap().outcome(), Some(ended.outcome));
    assert_eq!(env.state(1).unwrap().ply(), 0, "the slot's next game");
    assert_ne!(env.state(1).unwrap().serialize(), played.serialize());
    assert_eq!(env.state(0).unwrap().ply(), other.ply() + 1, "the other game goes on");
    assert!(matches!(env.forfeit(5, Color::Red), Err(Error::NoSuchGame { game: 5, batch: 2 })));
}
