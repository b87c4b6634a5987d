//! A forfeit ends a game by a referee's decision: the other side wins by
//! `forfeit`, and records and serialized states carry it exactly.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::{Color, EndReason, Error, GameRecord, Outcome, PieceSet, Ruleset, Setup, State};

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
