//! The controlled diagnostics of docs/COTOAN.md, section 10, as data the
//! `stratego cotoan diagnose` command prints and the tests check.
//!
//! - RQ2: sampling uniformly over witness-labelled actions instead of
//!   endpoint actions changes the probability of a capture with two
//!   witnesses, though both witnesses give the same successor.
//! - RQ3: occupancy and the side to move do not determine the outcome: the
//!   remaining ply budget and the settings must be observed too.
//!
//! Every RQ3 state is reached from the starting position by replaying a
//! move list with the engine's legality checks, so the pairs are reachable
//! by construction; `AliasedPair::replay` repeats that check.

use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::board::{zero_home, Board, Piece};
use crate::error::CoToanError;
use crate::fixtures::synthetic_state;
use crate::moves::{Move, Witness};
use crate::observation::differences;
use crate::settings::{HorizonRule, Settings};
use crate::square::Square;
use crate::state::CoToanState;
use stratego_contract::Color;

/// An exact probability `numerator / denominator`, in lowest terms.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Fraction {
    pub numerator: u64,
    pub denominator: u64,
}

impl Fraction {
    pub fn new(numerator: u64, denominator: u64) -> Fraction {
        let g = gcd(numerator, denominator).max(1);
        Fraction { numerator: numerator / g, denominator: denominator / g }
    }

    /// `self / other`, exact.
    pub fn ratio(self, other: Fraction) -> Fraction {
        Fraction::new(self.numerator * other.denominator, self.denominator * other.numerator)
    }

    pub fn value(self) -> f64 {
        self.numerator as f64 / self.denominator as f64
    }
}

impl std::fmt::Display for Fraction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.numerator, self.denominator)
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn sq(name: &str) -> Square {
    name.parse().expect("diagnostic squares are valid names")
}

/// A hand-built position of the rules' examples: the listed pieces plus
/// both zeros on their home squares, `to_move` to play at ply 0 or 1.
pub fn local_position(settings: Settings, pieces: &[(&str, Color, u8)], to_move: Color) -> CoToanState {
    let mut all: Vec<(Square, Piece)> =
        Color::BOTH.into_iter().map(|side| (zero_home(side), Piece { side, value: 0 })).collect();
    all.extend(pieces.iter().map(|&(name, side, value)| (sq(name), Piece { side, value })));
    let board = Board::from_pieces(&all).expect("diagnostic positions are valid");
    let ply = u32::from(to_move != settings.starting_player);
    CoToanState::from_parts(settings, board, to_move, ply).expect("diagnostic positions are well formed")
}

/// The seed's Fig. 3D position: red 8 on c4, red 3 on d4, a blue 5 on f4;
/// floor(8/3) = 8 mod 3 = 2 both justify c4xf4.
pub fn two_witness_position() -> CoToanState {
    local_position(
        Settings::default(),
        &[("c4", Color::Red, 8), ("d4", Color::Red, 3), ("f4", Color::Blue, 5)],
        Color::Red,
    )
}

/// RQ2 across a set of fixtures and in the two-witness position.
#[derive(Clone, Debug)]
pub struct WitnessSampling {
    /// Nonterminal fixtures examined.
    pub fixtures: usize,
    /// Endpoint actions summed over the fixtures.
    pub endpoint_actions: usize,
    /// Witness-labelled actions summed over the fixtures (an ordinary move
    /// counts once, a capture once per witness).
    pub witness_labelled_actions: usize,
    /// Fixtures with at least one capture justified by two or more witnesses.
    pub fixtures_with_duplicates: usize,
    pub example: TwoWitnessExample,
}

/// The c4xf4 example, every number computed by enumerating the actions.
#[derive(Clone, Debug)]
pub struct TwoWitnessExample {
    pub state: CoToanState,
    pub capture: Move,
    pub witnesses: Vec<Witness>,
    pub endpoint_actions: usize,
    pub witness_labelled_actions: usize,
    /// P(c4xf4) when an endpoint action is drawn uniformly.
    pub endpoint_probability: Fraction,
    /// P(c4xf4) when a witness-labelled action is drawn uniformly.
    pub witness_probability: Fraction,
    /// The successor is the same whichever witness is named.
    pub same_successor: bool,
}

/// The hand-built fixtures of the rules' examples plus `synthetic` seeded
/// synthetic positions under the default settings.
pub fn rq2_fixtures(synthetic: usize, seed: u64) -> Vec<CoToanState> {
    let default = Settings::default();
    let mut fixtures = vec![
        local_position(default, &[("c4", Color::Red, 2), ("d4", Color::Red, 1), ("f4", Color::Blue, 4)], Color::Red),
        two_witness_position(),
        local_position(
            default,
            &[("c4", Color::Red, 2), ("d4", Color::Red, 1), ("e4", Color::Blue, 6), ("f4", Color::Blue, 4)],
            Color::Red,
        ),
        CoToanState::new(default).expect("default settings are valid"),
    ];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    fixtures.extend((0..synthetic).map(|_| synthetic_state(default, &mut rng)));
    fixtures
}

/// Counts endpoint and witness-labelled actions over `fixtures` and works
/// out the two-witness example.
pub fn witness_sampling(fixtures: &[CoToanState]) -> WitnessSampling {
    let live: Vec<&CoToanState> = fixtures.iter().filter(|s| !s.is_terminal()).collect();
    let labelled =
        |s: &CoToanState| -> usize { s.legal_moves_with_witnesses().iter().map(|m| m.witness_labelled_count()).sum() };
    WitnessSampling {
        fixtures: live.len(),
        endpoint_actions: live.iter().map(|s| s.legal_actions().len()).sum(),
        witness_labelled_actions: live.iter().map(|s| labelled(s)).sum(),
        fixtures_with_duplicates: live
            .iter()
            .filter(|s| s.legal_moves_with_witnesses().iter().any(|m| m.witnesses().len() >= 2))
            .count(),
        example: two_witness_example(),
    }
}

fn two_witness_example() -> TwoWitnessExample {
    let state = two_witness_position();
    let capture = Move::new(sq("c4"), sq("f4"));
    // Enumerate both sampling spaces explicitly.
    let endpoint_space: Vec<Move> = state.legal_moves();
    let witness_space: Vec<(Move, Option<Witness>)> = state
        .legal_moves_with_witnesses()
        .iter()
        .flat_map(|m| {
            let witnesses = m.witnesses();
            if witnesses.is_empty() {
                vec![(m.mv, None)]
            } else {
                witnesses.into_iter().map(|w| (m.mv, Some(w))).collect()
            }
        })
        .collect();
    let hits = |n: usize| n as u64;
    let endpoint_hits = endpoint_space.iter().filter(|&&m| m == capture).count();
    let witness_hits = witness_space.iter().filter(|(m, _)| *m == capture).count();
    let witnesses = state.capture_witnesses(capture.action());
    let successors: Vec<CoToanState> =
        witnesses.iter().map(|_| state.child(capture).expect("c4xf4 is legal in the two-witness position")).collect();
    TwoWitnessExample {
        capture,
        endpoint_actions: endpoint_space.len(),
        witness_labelled_actions: witness_space.len(),
        endpoint_probability: Fraction::new(hits(endpoint_hits), hits(endpoint_space.len())),
        witness_probability: Fraction::new(hits(witness_hits), hits(witness_space.len())),
        same_successor: successors.windows(2).all(|w| w[0] == w[1]),
        witnesses,
        state,
    }
}

/// A move list from the starting position of a task, and where it leads.
#[derive(Clone, Debug)]
pub struct Line {
    pub settings: Settings,
    pub moves: Vec<Move>,
    pub state: CoToanState,
}

impl Line {
    /// Replays `moves` from the starting position with every legality check.
    pub fn replay(settings: Settings, moves: Vec<Move>) -> Result<Line, CoToanError> {
        let mut state = CoToanState::new(settings)?;
        for &mv in &moves {
            state.apply_move(mv)?;
        }
        Ok(Line { settings, moves, state })
    }
}

/// Two reachable states an agent that sees only occupancy and the side to
/// move cannot tell apart, with different outcomes.
#[derive(Clone, Debug)]
pub struct AliasedPair {
    pub name: &'static str,
    pub left: Line,
    pub right: Line,
    /// The move played in both states when the difference shows one ply
    /// later (the horizon pair), and the states it leads to.
    pub probe: Option<(Move, CoToanState, CoToanState)>,
}

impl AliasedPair {
    /// The states whose outcomes differ: after the probe when there is one.
    pub fn compared(&self) -> (&CoToanState, &CoToanState) {
        match &self.probe {
            Some((_, l, r)) => (l, r),
            None => (&self.left.state, &self.right.state),
        }
    }

    /// Whether the two states look alike without time and settings: the
    /// same occupancy and side to move.
    pub fn same_occupancy_and_controller(&self) -> bool {
        let (l, r) = (&self.left.state, &self.right.state);
        l.board() == r.board() && l.to_move() == r.to_move()
    }

    /// The observation entries that tell the two states apart.
    pub fn observation_differences(&self) -> Vec<(usize, f32, f32)> {
        differences(&self.left.state.observation(), &self.right.state.observation())
    }

    /// Replays both lines again from the starting position.
    pub fn replay(&self) -> Result<(CoToanState, CoToanState), CoToanError> {
        Ok((
            Line::replay(self.left.settings, self.left.moves.clone())?.state,
            Line::replay(self.right.settings, self.right.moves.clone())?.state,
        ))
    }
}

fn moves(names: &[&str]) -> Vec<Move> {
    names.iter().map(|n| n.parse().expect("diagnostic moves are valid names")).collect()
}

/// `plies` waiting moves that leave the capture geometry alone, `first`
/// moving first: Red's 1 steps a1-a2 and back, Blue's 1 i11-i10 and back.
/// Four plies restore the occupancy.
pub fn shuttle(plies: u32, first: Color) -> Vec<Move> {
    let mut out = [false, false];
    let mut side = first;
    (0..plies)
        .map(|_| {
            let (home, away) = match side {
                Color::Red => (sq("a1"), sq("a2")),
                Color::Blue => (sq("i11"), sq("i10")),
            };
            let at_home = !out[side.index()];
            out[side.index()] = at_home;
            side = side.opponent();
            if at_home {
                Move::new(home, away)
            } else {
                Move::new(away, home)
            }
        })
        .collect()
}

/// Three quiet opening plies (b1-b3, h11-h9, c1-c4), Blue to move at ply 3.
const QUIET_OPENING: [&str; 3] = ["b1-b3", "h11-h9", "c1-c4"];
/// The move played in both horizon states.
const HORIZON_PROBE: &str = "g11-g8";
/// Red wins Blue's 9 by ply 5: the 7 goes g1-i3, the 8 h1-h4, and 7 mod 8
/// = 7 takes a11 along the empty diagonal from h4 (Blue shuttles meanwhile).
const RED_TAKES_NINE: [&str; 5] = ["g1-i3", "i11-i10", "h1-h4", "i10-i11", "i3xa11"];

/// RQ3a: the same occupancy, Blue to move, at ply 3 and at ply 299 (the
/// quiet opening, then 296 shuttle plies that restore it); the probe leads
/// to a nonterminal state at ply 4 and to a horizon draw (0-0) at ply 300.
pub fn horizon_pair() -> Result<AliasedPair, CoToanError> {
    let settings = Settings::default();
    let opening = moves(&QUIET_OPENING);
    let early = Line::replay(settings, opening.clone())?;
    let mut late_moves = opening;
    late_moves.extend(shuttle(settings.horizon - 1 - early.state.ply(), early.state.to_move()));
    let late = Line::replay(settings, late_moves)?;
    let probe: Move = HORIZON_PROBE.parse().expect("a valid move name");
    let (after_early, after_late) = (early.state.child(probe)?, late.state.child(probe)?);
    Ok(AliasedPair { name: "horizon", left: early, right: late, probe: Some((probe, after_early, after_late)) })
}

/// RQ3b: Red captures Blue's 9 by ply 5, then both sides shuttle to the
/// horizon: at ply 300 Red leads 9-0, a Red win under score adjudication
/// and a draw under the draw rule (threshold off in both).
pub fn horizon_rule_pair() -> Result<AliasedPair, CoToanError> {
    let score = Settings::default();
    let draw = Settings { horizon_rule: HorizonRule::Draw, ..score };
    let mut line = moves(&RED_TAKES_NINE);
    line.extend(shuttle(score.horizon - line.len() as u32, Color::Blue));
    Ok(AliasedPair {
        name: "horizon-rule",
        left: Line::replay(score, line.clone())?,
        right: Line::replay(draw, line)?,
        probe: None,
    })
}

/// RQ3c: the same five plies under threshold 9 (Red has won) and threshold
/// 0 (the game goes on) at ply 5.
pub fn threshold_pair() -> Result<AliasedPair, CoToanError> {
    let off = Settings::default();
    let nine = Settings { threshold: 9, ..off };
    let line = moves(&RED_TAKES_NINE);
    Ok(AliasedPair {
        name: "threshold",
        left: Line::replay(nine, line.clone())?,
        right: Line::replay(off, line)?,
        probe: None,
    })
}
