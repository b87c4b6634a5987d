//! The hand-written evaluation of the expectimax player.
//!
//! From the searching player's side, using only what that player knows:
//! - **material**: its own pieces at their values, the opponent's revealed
//!   pieces at theirs, and each hidden opponent piece at its expected value
//!   under the counting prior at that node;
//! - **Marshal and Spy danger**: a revealed Marshal while the enemy Spy may
//!   still live costs a small share of the Marshal's value, and a large share
//!   when a piece that may be the Spy stands next to it with its side to move
//!   (the Spy strikes next ply, often beyond the search horizon); the same
//!   bonus the other way round;
//! - **mobility**: free squares next to movable pieces (a hidden opponent
//!   piece counts with its probability of being movable), a small weight;
//! - **advance**: rows gained towards the enemy's back row by movable pieces,
//!   the same small weight per row as the greedy player's bonus. Without it
//!   quiet positions tie and the search shuffles, while the side that makes
//!   contact first gets the first chances at the enemy's unmoved pieces (with
//!   random setups, often the Flag).
//!
//! - **press** (`evaluate_pressing`; the rules of it in
//!   [`press`](crate::press)): when the player is ahead on material by at
//!   least `PRESS_LEAD`, a bonus for turning the lead into a win instead of
//!   keeping it: each of its movable pieces gains `PRESS_WEIGHT` per square
//!   it stands closer to its nearest target, more the longer the game has
//!   gone without a battle, and the lead counts `TRADE_WEIGHT` more for each
//!   unit share of the armies' material gone (even trades help the side that
//!   is ahead). Without it a search that is ahead finds no move better than
//!   any other and shuffles until a cap draws the game, where the rules do
//!   not forbid shuffling.
//!
//! **Expectimax's leaves** (`leaf_value`) add two guards and put the sum
//! on the scale of the game's result:
//! - **threats** (`guard`): the side to move may take one revealed enemy
//!   piece next to one of its own, and it attacks only with a piece that
//!   wins, since it knows its own types. A hidden attacker's chance of
//!   being such a piece comes from the counting prior. This generalises the
//!   Spy-next-to-Marshal share above (which `guard` replaces): a revealed
//!   General next to a possible Marshal is in danger too, and the danger is
//!   the whole piece, not a share.
//! - **the Flag's guard** (`guard`): an enemy piece that could take our Flag
//!   within a few moves, a Miner through the Bombs around it or any movable
//!   piece by an open path, is a chance `q` of losing the game: its chance
//!   of being such a piece, halved for every move it still needs (one more
//!   when we are to move; a revealed piece fades by `KNOWN_FADE` a move
//!   instead), and lowered where our defenders that beat it (or trade
//!   with it) can strike it on a square of its shortest way by the time it
//!   stands there, more the more moves they have to spare, so that a search
//!   sends a defender to a Miner walking through our Bombs instead of
//!   playing elsewhere. (Requiring the defenders to cover every way the
//!   attacker may take, the cautious reading, lost 5 of 10 games against
//!   one bot where this one lost 2: EVALUATION.md, "The outside field".) The leaf becomes
//!   `(1 - q) v - q LEAF_LIMIT`: a
//!   lost Flag is a lost game however far ahead we are, so the guard is not
//!   a material term that a large lead would dwarf. Without it a search sees
//!   a lone Miner breaking through only when the Flag falls inside its
//!   horizon, and then too late.
//! - **the result's scale** (`scale`): the sum `e` becomes
//!   `LEAF_LIMIT * tanh(e / scale)`, an expected result on the scale of the
//!   terminal scores `±WIN` rather than material. Chance nodes average these, so risk is weighed as it bears on
//!   the game: an officer that attacks a never-moved piece risks a large
//!   share of the game on the Bomb it may be, while the same attack's chance
//!   of finding the Flag (a win, `WIN`) stays what it is. On the linear
//!   material scale a 1-in-15 chance of the Flag (`WIN / 15`) outweighed a
//!   1-in-3 chance of losing the Marshal (`400 / 3`), so the search dived
//!   its officers into unmoved pieces. Cheap pieces risk little and still
//!   probe. Max and min nodes are unchanged: tanh keeps the order.
//!
//! The value is clamped to `±EVAL_LIMIT` (or squashed inside it), strictly
//! inside the terminal scores `±WIN`, so every value in a search lies in
//! `[-WIN, WIN]`: the bounds Star1 pruning relies on.

use stratego_engine::{battle, BattleResult, Color, CountingPrior, Piece, PieceType, Square, State};

use crate::press::{stall, Targets, PRESS_LEAD, PRESS_WEIGHT, TRADE_WEIGHT};
use crate::values::{expected_value, value};

/// The score of a won game (less one per ply to get there, so quicker wins
/// score higher); a loss scores the negative.
pub const WIN: f64 = 100_000.0;
/// Evaluations never leave `[-EVAL_LIMIT, EVAL_LIMIT]`.
pub const EVAL_LIMIT: f64 = 50_000.0;
/// Leaves on the result's scale never leave `[-LEAF_LIMIT, LEAF_LIMIT]`:
/// near the terminal scores, as an almost sure result should be, and still
/// below every win a search can find (`WIN` less at most `MAX_DEPTH` plies).
pub const LEAF_LIMIT: f64 = WIN - 1_000.0;
/// Weight of one free square next to a movable piece.
pub const MOBILITY_WEIGHT: f64 = 0.5;
/// Weight of one row advanced by a movable piece (towards the enemy's back row).
pub const ADVANCE_WEIGHT: f64 = 1.0;
/// Share of the Marshal's value at stake while it is revealed and the enemy Spy lives ...
pub const MARSHAL_EXPOSED: f64 = 0.05;
/// ... and the extra share per unit probability that a piece next to it is the Spy, that side to move.
pub const SPY_NEXT_TO_MARSHAL: f64 = 0.6;

/// The default `scale` of expectimax's leaves: a lead of this much material
/// (about a Colonel and a Major) is worth tanh(1) = 0.76 of the way to a won
/// game.
pub const DEFAULT_SCALE: u32 = 300;
/// The Flag's guard: how many moves away an enemy piece still counts.
pub const FLAG_GUARD_MOVES: u32 = 8;

/// What expectimax's leaves weigh beyond `evaluate`'s terms (see the module
/// documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct LeafTerms {
    /// The press towards the win when ahead.
    pub press: bool,
    /// Threats by the side to move and the Flag's guard.
    pub guard: bool,
    /// The Flag's guard counts our defenders that can reach an attacker in
    /// time, and a revealed attacker's threat fades by `KNOWN_FADE` a move
    /// (off: every threat halves a move, whoever stands near).
    pub defend: bool,
    /// The result's scale in material points; 0 keeps the linear material
    /// scale, clamped.
    pub scale: u32,
}

/// The value of a finished game for `me`, `plies` plies below the root.
pub fn terminal_score(state: &State, me: Color, plies: u32) -> f64 {
    match state.outcome().and_then(|o| o.winner) {
        Some(winner) if winner == me => WIN - plies as f64,
        Some(_) => -WIN + plies as f64,
        None => 0.0,
    }
}

/// The probability, from `me`'s side, that `piece` (of either side) is of type `kind`.
fn chance_of(piece: &Piece, kind: PieceType, me: Color, prior: &CountingPrior) -> f64 {
    if piece.color == me || piece.revealed {
        (piece.kind == kind) as u8 as f64
    } else {
        prior.of(piece)[kind.index()] as f64
    }
}

fn free_neighbours(state: &State, sq: Square) -> f64 {
    sq.neighbours().filter(|n| !n.is_lake() && state.board()[*n].is_none()).count() as f64
}

/// The evaluation of a non-terminal `state` for `me` (see the module documentation).
pub fn evaluate(state: &State, me: Color) -> f64 {
    let t = terms(state, me);
    (t.base + t.spy_next_to_marshal).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// `evaluate` with the press towards the win when ahead (see the module
/// documentation).
pub fn evaluate_pressing(state: &State, me: Color) -> f64 {
    let t = terms(state, me);
    (t.base + t.spy_next_to_marshal + press(state, me, &t.material)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// The press term of `evaluate_pressing` alone, for a leaf valued another
/// way (expectimax's learned leaf adds it to the tables' value).
pub fn press_term(state: &State, me: Color) -> f64 {
    press(state, me, &terms(state, me).material)
}

/// An expectimax leaf: `evaluate`'s terms with the press, the guards and the
/// result's scale that `leaf` asks for (see the module documentation).
pub fn leaf_value(state: &State, me: Color, leaf: LeafTerms) -> f64 {
    let t = terms(state, me);
    let mut e = t.base;
    if leaf.press {
        e += press(state, me, &t.material);
    }
    if !leaf.guard {
        return on_scale(e + t.spy_next_to_marshal, leaf.scale);
    }
    e += threat(state, me, &t.prior);
    let q = flag_danger(state, me, &t.prior, leaf.defend);
    (1.0 - q) * on_scale(e, leaf.scale) - q * LEAF_LIMIT
}

/// A sum of terms on the result's scale: `LEAF_LIMIT * tanh(e / scale)`,
/// or `e` clamped to `EVAL_LIMIT` with scale 0.
pub fn on_scale(e: f64, scale: u32) -> f64 {
    if scale == 0 {
        e.clamp(-EVAL_LIMIT, EVAL_LIMIT)
    } else {
        LEAF_LIMIT * (e / scale as f64).tanh()
    }
}

/// The side to move's best capture of a revealed enemy piece next to one of
/// its pieces, made only with a piece that wins: positive when `me` is to
/// move, negative when the opponent is. A hidden opponent attacker wins with
/// the probability of the types that beat the target (it knows its type and
/// attacks only then); `me` knows its own.
fn threat(state: &State, me: Color, prior: &CountingPrior) -> f64 {
    let board = state.board();
    let mover = state.to_move();
    let mut best: f64 = 0.0;
    for (sq, target) in board.pieces() {
        // The target must be known to the side that attacks: our pieces
        // once revealed, the opponent's only when revealed to us.
        if target.color == mover || !target.revealed {
            continue;
        }
        for n in sq.neighbours() {
            let Some(attacker) = board[n] else { continue };
            if attacker.color != mover {
                continue;
            }
            let wins = if attacker.color == me || attacker.revealed {
                (attacker.kind.is_movable() && battle(attacker.kind, target.kind) == BattleResult::AttackerWins) as u8
                    as f64
            } else {
                let dist = prior.of(&attacker);
                PieceType::ALL
                    .into_iter()
                    .filter(|t| t.is_movable() && battle(*t, target.kind) == BattleResult::AttackerWins)
                    .map(|t| dist[t.index()] as f64)
                    .sum()
            };
            best = best.max(wins * value(target.kind));
        }
    }
    if mover == me {
        best
    } else {
        -best
    }
}

/// The danger to `me`'s Flag (see the module documentation), a chance of
/// losing it: the largest `P(the piece can take it) * 2^-(moves - 1)` over
/// the enemy's movable pieces within `FLAG_GUARD_MOVES` moves, one more
/// move when `me` is to move. A Miner's path may cross our Bombs (each
/// costs the move that takes it), any other piece's may not. Each part is
/// lowered by our best defender that can reach the piece before it reaches
/// the Flag ([`interception`]).
fn flag_danger(state: &State, me: Color, prior: &CountingPrior, defend: bool) -> f64 {
    let board = state.board();
    let Some((flag, _)) = board.pieces().find(|(_, p)| p.color == me && p.kind == PieceType::Flag) else {
        return 0.0;
    };
    let miner = moves_to(state, flag, me, true);
    let other = moves_to(state, flag, me, false);
    let tempo = (state.to_move() == me) as u32;
    let mut danger: f64 = 0.0;
    let mut miner_defenders: Option<[u32; Square::COUNT]> = None;
    for (sq, piece) in board.pieces().filter(|(_, p)| p.color != me) {
        // A piece whose type we know is a threat by what it is, and fades
        // slowly with distance; a hidden one is halved per move, since its
        // chance of being the piece that can take the Flag already says much.
        let fade = if piece.revealed && defend { KNOWN_FADE } else { 0.5 };
        let halve = |moves: u32| if moves > FLAG_GUARD_MOVES { 0.0 } else { fade.powi((moves + tempo) as i32 - 1) };
        // The chance of each type, from `me`'s side: a Miner, or another
        // movable type (each weighed by its share).
        let dist: [f32; PieceType::COUNT] = if piece.revealed {
            std::array::from_fn(|i| (i == piece.kind.index()) as u8 as f32)
        } else {
            *prior.of(&piece)
        };
        let p_miner = dist[PieceType::Miner.index()] as f64;
        let p_other: f64 = PieceType::ALL
            .into_iter()
            .filter(|t| t.is_movable() && *t != PieceType::Miner)
            .map(|t| dist[t.index()] as f64)
            .sum();
        let (m_miner, m_other) = (miner[sq.index()], other[sq.index()]);
        let (d_miner, d_other) = (p_miner * halve(m_miner), p_other * halve(m_other));
        // Only a threat that could be the largest, and is worth it, is
        // weighed against our defenders (a leaf is valued thousands of times
        // a move, and each weighing is a breadth-first search or two).
        if !defend || d_miner + d_other <= danger || d_miner + d_other < DANGER_WORTH_DEFENDING {
            danger = danger.max(d_miner + d_other);
            continue;
        }
        // Where the attacker stands after each of its moves on a shortest
        // way to the Flag, and which of those squares our defenders (those
        // that beat or trade with such a piece) can strike in time: the
        // most slack any square gives decides.
        let keep =
            |part_moves: u32, flag_dist: &[u32; Square::COUNT], through_bombs: bool, reach: &[u32; Square::COUNT]| {
                let from_attacker = moves_to(state, sq, me, through_bombs);
                let slack = Square::all()
                    .filter(|x| {
                        let (k, rest) = (from_attacker[x.index()], flag_dist[x.index()]);
                        k != u32::MAX && rest != u32::MAX && rest >= 1 && k + rest == part_moves
                    })
                    .filter(|x| reach[x.index()] != u32::MAX)
                    .map(|x| from_attacker[x.index()] as i64 + tempo as i64 - reach[x.index()] as i64)
                    .max();
                interception(slack)
            };
        let defenders_of = |removes: &dyn Fn(PieceType) -> bool| {
            let defenders = board.pieces().filter(|(_, p)| p.color == me && p.kind.is_movable() && removes(p.kind));
            moves_from(state, defenders.map(|(dsq, _)| dsq))
        };
        // A Miner is removed by any piece that beats it or trades with it;
        // those pieces' reach is the same for every attacker.
        let keep_miner = if d_miner >= DANGER_WORTH_DEFENDING {
            let reach = miner_defenders.get_or_insert_with(|| {
                defenders_of(&|t: PieceType| battle(t, PieceType::Miner) != BattleResult::DefenderWins)
            });
            keep(m_miner, &miner, true, reach)
        } else {
            1.0
        };
        // Another piece only where we know what it is.
        let keep_other = if piece.revealed && piece.kind != PieceType::Miner && d_other >= DANGER_WORTH_DEFENDING {
            let kind = piece.kind;
            keep(m_other, &other, false, &defenders_of(&|t: PieceType| battle(t, kind) != BattleResult::DefenderWins))
        } else {
            1.0
        };
        danger = danger.max(d_miner * keep_miner + d_other * keep_other);
    }
    danger.min(1.0)
}

/// How much of a revealed piece's threat to the Flag is left per move it
/// still needs. A known Miner five moves from a bombed-in Flag is a real
/// threat (the outside bots' Miners walk through our Bombs while the search
/// plays elsewhere: EVALUATION.md, "The outside field"), not the 3 % that
/// halving per move made it; hidden pieces keep halving.
pub const KNOWN_FADE: f64 = 0.75;

/// Below this, an enemy piece's threat to the Flag is not worth a search for
/// defenders (a leaf is valued thousands of times a move).
const DANGER_WORTH_DEFENDING: f64 = 0.03;

/// The share of a threat left when our defenders can strike the attacker
/// on its way with `slack` moves to spare (`None`: they cannot; below 0:
/// too late). Each move to spare halves what is left, so a search that
/// brings a defender nearer the attacker's way sees the Flag safer.
fn interception(slack: Option<i64>) -> f64 {
    match slack {
        Some(slack) if slack >= 0 => 0.5f64.powi(slack.min(30) as i32 + 1),
        _ => 1.0,
    }
}

/// Moves a piece on each square needs to reach `target` (breadth first from
/// it, `u32::MAX` where it cannot): every step one move; squares holding
/// `me`'s Bombs are crossed only `through_bombs` (a Miner takes them).
fn moves_to(state: &State, target: Square, me: Color, through_bombs: bool) -> [u32; Square::COUNT] {
    let board = state.board();
    // A piece stops on the square where it meets our Bomb, so the search
    // goes on from a Bomb only for a Miner.
    distances(std::iter::once(target), |sq| {
        through_bombs || !board[sq].is_some_and(|p| p.color == me && p.kind == PieceType::Bomb)
    })
}

/// Moves our pieces on `sources` need, the nearest of them, to move onto
/// or strike each square: through empty squares only, so a square holding
/// a piece is reached but not passed through.
fn moves_from(state: &State, sources: impl Iterator<Item = Square>) -> [u32; Square::COUNT] {
    let board = state.board();
    distances(sources, |sq| board[sq].is_none())
}

/// Breadth first from `sources` (0 moves) over the board's squares, lakes
/// left out: each square reached gets its moves, and the search goes on
/// from it only where `passes` (a source always).
fn distances(sources: impl Iterator<Item = Square>, passes: impl Fn(Square) -> bool) -> [u32; Square::COUNT] {
    let mut dist = [u32::MAX; Square::COUNT];
    let mut queue = std::collections::VecDeque::with_capacity(Square::COUNT);
    for sq in sources {
        dist[sq.index()] = 0;
        queue.push_back(sq);
    }
    while let Some(sq) = queue.pop_front() {
        let d = dist[sq.index()];
        if d > 0 && !passes(sq) {
            continue;
        }
        for n in sq.neighbours() {
            if n.is_lake() || dist[n.index()] != u32::MAX {
                continue;
            }
            dist[n.index()] = d + 1;
            queue.push_back(n);
        }
    }
    dist
}

/// Both sides' material as `me` values it: its own pieces, and the
/// opponent's at their known or expected values (Flags left out).
struct Material {
    own: f64,
    opponent: f64,
}

/// The press term of `evaluate_pressing`: 0 unless `me` leads by `PRESS_LEAD`.
fn press(state: &State, me: Color, material: &Material) -> f64 {
    let lead = material.own - material.opponent;
    if lead < PRESS_LEAD {
        return 0.0;
    }
    let targets = Targets::of_state(state, me);
    let movable = state.board().pieces().filter(|(_, p)| p.color == me && p.kind.is_movable());
    let approach = targets.approach(movable.map(|(sq, p)| (sq, p.kind)));
    let full = 2.0 * army_material(state.rules().piece_set);
    let gone = (1.0 - (material.own + material.opponent) / full).clamp(0.0, 1.0);
    stall(state.battleless()) * PRESS_WEIGHT * approach + TRADE_WEIGHT * lead * gone
}

/// One whole army's material, Flag left out.
fn army_material(set: stratego_engine::PieceSet) -> f64 {
    PieceType::ALL.iter().filter(|&&k| k != PieceType::Flag).map(|&k| set.count(k) as f64 * value(k)).sum()
}

/// `evaluate`'s terms, unclamped.
struct Terms {
    /// Material, mobility, advance and the Marshal's exposure.
    base: f64,
    /// The share of a revealed Marshal at stake next to a possible Spy of
    /// the side to move (`leaf_value`'s threats replace it).
    spy_next_to_marshal: f64,
    material: Material,
    /// The counting prior at this state, for the leaves' further terms.
    prior: CountingPrior,
}

/// The unclamped terms of `evaluate`, and the material of both sides.
fn terms(state: &State, me: Color) -> Terms {
    let prior = CountingPrior::new(state, me);
    let board = state.board();
    let mut material = 0.0;
    let mut mobility = 0.0;
    let mut advance = 0.0;
    let mut marshals: [Option<(Square, Piece)>; 2] = [None, None];
    let mut sides = Material { own: 0.0, opponent: 0.0 };
    for (sq, piece) in board.pieces() {
        let sign = if piece.color == me { 1.0 } else { -1.0 };
        // `flag_share`: the part of `worth` that is the Flag's, which the
        // sides' material (the press's lead) leaves out.
        let (worth, movable, flag_share) = if piece.color == me || piece.revealed {
            let flag = if piece.kind == PieceType::Flag { value(PieceType::Flag) } else { 0.0 };
            (value(piece.kind), piece.kind.is_movable() as u8 as f64, flag)
        } else {
            let dist = prior.of(&piece);
            let flag = dist[PieceType::Flag.index()] as f64;
            let immovable = dist[PieceType::Bomb.index()] as f64 + flag;
            (expected_value(dist), 1.0 - immovable, flag * value(PieceType::Flag))
        };
        material += sign * worth;
        let side = if piece.color == me { &mut sides.own } else { &mut sides.opponent };
        *side += worth - flag_share;
        if movable > 0.0 {
            mobility += sign * movable * free_neighbours(state, sq);
            advance += sign * movable * sq.in_frame(piece.color).row() as f64;
        }
        if piece.kind == PieceType::Marshal && (piece.color == me || piece.revealed) {
            marshals[piece.color.index()] = Some((sq, piece));
        }
    }
    let mut danger = 0.0;
    let mut spy_next = 0.0;
    for (sq, marshal) in marshals.into_iter().flatten().filter(|(_, m)| m.revealed) {
        let owner = marshal.color;
        let spy_alive = if owner == me {
            prior.unknown[PieceType::Spy.index()] > 0
                || board.pieces().any(|(_, p)| p.color != me && p.revealed && p.kind == PieceType::Spy)
        } else {
            board.pieces().any(|(_, p)| p.color == me && p.kind == PieceType::Spy)
        };
        if !spy_alive {
            continue;
        }
        let spy_to_move = state.to_move() != owner;
        let adjacent_spy = sq
            .neighbours()
            .filter_map(|n| board[n])
            .filter(|p| p.color != owner)
            .map(|p| chance_of(&p, PieceType::Spy, me, &prior))
            .fold(0.0, f64::max);
        let sign = if owner == me { -1.0 } else { 1.0 };
        danger += sign * MARSHAL_EXPOSED * value(PieceType::Marshal);
        if spy_to_move {
            spy_next += sign * SPY_NEXT_TO_MARSHAL * adjacent_spy * value(PieceType::Marshal);
        }
    }
    Terms {
        base: material + MOBILITY_WEIGHT * mobility + ADVANCE_WEIGHT * advance + danger,
        spy_next_to_marshal: spy_next,
        material: sides,
        prior,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(board: &str, side: &str) -> State {
        State::deserialize(&format!("{} {board} {side} 10 3", stratego_engine::Ruleset::classic().canonical())).unwrap()
    }

    #[test]
    fn material_counts_hidden_pieces_at_their_expected_value() {
        // Red: Flag, Marshal (hidden). Blue: Flag and a Bomb, both hidden and unmoved.
        let s = state(
            "f.......b./........../........../........../..~~..~~../..~~..~~../........../........../....M...../F.........",
            "red",
        );
        let prior = CountingPrior::new(&s, Color::Red);
        let hidden = expected_value(prior.unmoved());
        assert!((hidden - 0.5 * (value(PieceType::Flag) + value(PieceType::Bomb))).abs() < 1e-3);
        let mobility = 4.0 - 0.0; // the Marshal on e2 has 4 free neighbours; Blue's pieces are immovable
        let advance = 1.0; // the Marshal stands on Red's second row
        let expected = value(PieceType::Flag) + value(PieceType::Marshal) - 2.0 * hidden
            + MOBILITY_WEIGHT * mobility
            + ADVANCE_WEIGHT * advance;
        assert!((evaluate(&s, Color::Red) - expected).abs() < 1e-3);
    }

    #[test]
    fn a_revealed_marshal_next_to_a_possible_spy_is_in_danger() {
        // Red's revealed Marshal on e5; Blue has two hidden moved pieces, its
        // Spy and a Scout, one of them on e6 next to the Marshal.
        let scout_next = "f........s+/........../........../........../..~~o+.~~../..~~M^.~~../........../........../........../F.........";
        let spy_next = "f........o+/........../........../........../..~~s+.~~../..~~M^.~~../........../........../........../F.........";
        // Red cannot tell the two apart, and neither can its evaluation.
        let blue_to_move = evaluate(&state(scout_next, "blue"), Color::Red);
        assert_eq!(blue_to_move, evaluate(&state(spy_next, "blue"), Color::Red));
        // With Blue to move the piece on e6 (a Spy with probability 1/2) may
        // strike next ply: that costs 0.6 * 1/2 of the Marshal's value more
        // than with Red to move.
        let red_to_move = evaluate(&state(scout_next, "red"), Color::Red);
        let extra = SPY_NEXT_TO_MARSHAL * 0.5 * value(PieceType::Marshal);
        assert!((red_to_move - blue_to_move - extra).abs() < 1e-3, "{red_to_move} {blue_to_move}");
    }

    const PLAIN: LeafTerms = LeafTerms { press: false, guard: false, defend: false, scale: 0 };
    const GUARDED: LeafTerms = LeafTerms { press: false, guard: true, defend: false, scale: 0 };

    /// A revealed Blue Miner three moves from Red's bombed-in Flag is a
    /// chance of 2^-2 of losing the game with Blue to move, 2^-3 with Red to
    /// move; a Sergeant there is none (it cannot pass the Bombs).
    #[test]
    fn the_flag_guard_is_a_chance_of_losing_the_flag() {
        let miner = "f........./........../........../........../..~~..~~../..~~..~~../........../........../B.n^+......./FB........";
        let sergeant = miner.replace("n^+", "e^+");
        for (board, side, q) in [(miner, "blue", 0.25), (miner, "red", 0.125), (sergeant.as_str(), "blue", 0.0)] {
            let s = state(board, side);
            let guarded = leaf_value(&s, Color::Red, GUARDED);
            let expected = (1.0 - q) * leaf_value(&s, Color::Red, PLAIN) - q * LEAF_LIMIT;
            assert!((guarded - expected).abs() < 1e-6, "{side} {q}: {guarded} {expected}");
        }
    }

    /// With `defend`, a known Miner's threat fades by `KNOWN_FADE` a move,
    /// and a Red Sergeant that can strike it on its way halves what is left
    /// for each move it has to spare; a defender too far away changes nothing.
    #[test]
    fn the_flag_guard_counts_defenders_that_can_reach_the_attacker_in_time() {
        const DEFENDED: LeafTerms = LeafTerms { press: false, guard: true, defend: true, scale: 0 };
        let miner = "f........./........../........../........../..~~..~~../..~~..~~../........../........../B.n^+......./FB........";
        let near = miner.replace("........../B.n^+", "..E^+......./B.n^+");
        let far = miner.replace("f........./", "f.......E^+./");
        let fade = |moves: i32| KNOWN_FADE.powi(moves);
        // The Miner needs 3 moves: 2 more when Blue moves, one more with Red to move.
        for (board, side, q) in [
            (miner, "blue", fade(2)),
            (miner, "red", fade(3)),
            // Red to move strikes c2 from c3 at once: no move to spare.
            (near.as_str(), "red", fade(3) * 0.5),
            // Blue to move steps on before the Sergeant can strike.
            (near.as_str(), "blue", fade(2)),
            (far.as_str(), "red", fade(3)),
        ] {
            let s = state(board, side);
            let defended = leaf_value(&s, Color::Red, DEFENDED);
            // The leaf before the guard (with the threats: the Sergeant next
            // to the Miner may take it), from the guard as it was, which
            // halves the Miner's threat per move and ignores the Sergeant.
            let old_q = 0.5f64.powi(if side == "red" { 3 } else { 2 });
            let before = (leaf_value(&s, Color::Red, GUARDED) + old_q * LEAF_LIMIT) / (1.0 - old_q);
            let expected = (1.0 - q) * before - q * LEAF_LIMIT;
            assert!((defended - expected).abs() < 1e-6, "{side} {q}: {defended} {expected}\n{board}");
        }
    }

    /// Red's revealed General next to a moved hidden Blue piece that is the
    /// Marshal or a Scout: with Blue to move, the General is lost with the
    /// Marshal's probability (Blue attacks only with its Marshal); with Red
    /// to move, Red's best capture of a revealed piece is nothing.
    #[test]
    fn a_revealed_piece_next_to_a_hidden_one_that_may_beat_it_is_threatened() {
        let board = "f........./o+........./........../........../..~~m+.~~../..~~G^+.~~../........../........../........../.........F";
        let blue = state(board, "blue");
        let threat = leaf_value(&blue, Color::Red, GUARDED) - leaf_value(&blue, Color::Red, PLAIN);
        assert!((threat + 0.5 * value(PieceType::General)).abs() < 1e-6, "{threat}");
        let red = state(board, "red");
        assert_eq!(leaf_value(&red, Color::Red, GUARDED), leaf_value(&red, Color::Red, PLAIN));
    }

    /// Leaves on the result's scale keep the order of the material scale
    /// and stay inside `±LEAF_LIMIT`, below every terminal score.
    #[test]
    fn leaves_on_the_results_scale_are_ordered_and_bounded() {
        let mut last = f64::NEG_INFINITY;
        for e in [-1e9, -5000.0, -300.0, -1.0, 0.0, 1.0, 300.0, 5000.0, 1e9] {
            let v = on_scale(e, DEFAULT_SCALE);
            assert!(v >= last && v.abs() <= LEAF_LIMIT && v.abs() < WIN - 20.0, "{e}: {v}");
            last = v;
        }
        assert_eq!(on_scale(1e9, 0), EVAL_LIMIT);
    }

    /// The afterstate player's lead (`press::view_lead`, from its view) is
    /// the lead this evaluation presses on (from the state), for the side
    /// to move, over random games with battles and revealed pieces.
    #[test]
    fn the_view_lead_is_the_evaluations_lead() {
        use rand::SeedableRng;
        use stratego_engine::{Ruleset, Setup};
        use stratego_players::view::{public_history, InfoView};
        let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(16);
        let mut compared = 0;
        for _ in 0..20 {
            let rules = Ruleset::classic();
            let (red, blue) = (Setup::random(rules.piece_set, &mut rng), Setup::random(rules.piece_set, &mut rng));
            let mut s = State::from_setups(rules, &red, &blue).unwrap();
            while !s.is_terminal() && s.ply() < 300 {
                if s.ply().is_multiple_of(10) {
                    let history = public_history(&s);
                    let material = terms(&s, s.to_move()).material;
                    let view = crate::press::view_lead(&InfoView::new(&s, &history));
                    let lead = material.own - material.opponent;
                    assert!((view - lead).abs() < 1e-3, "ply {}: view {view}, state {lead}", s.ply());
                    compared += 1;
                }
                let mv = s.sample_legal_move(&mut rng).unwrap();
                s.apply_move(mv).unwrap();
            }
        }
        assert!(compared > 200, "{compared}");
    }

    /// The press: nothing when not ahead; when ahead, a step towards the
    /// hidden enemy piece scores higher than the same step away from it.
    #[test]
    fn the_press_pulls_towards_hidden_pieces_only_when_ahead() {
        // Blue: the Flag (hidden, a10) and a hidden Bomb (c10). Red: its
        // Flag and a Colonel on e6, or on e5, one square further from c10.
        let near = "f.b......./........../........../........../..~~C.~~../..~~..~~../........../........../........../.........F";
        let far = "f.b......./........../........../........../..~~..~~../..~~C.~~../........../........../........../.........F";
        let (near, far) = (state(near, "blue"), state(far, "blue"));
        let pressed = evaluate_pressing(&near, Color::Red) - evaluate_pressing(&far, Color::Red);
        let plain = evaluate(&near, Color::Red) - evaluate(&far, Color::Red);
        assert!(
            (pressed - plain - PRESS_WEIGHT).abs() < 1e-9,
            "one square closer is worth PRESS_WEIGHT: {pressed} {plain}"
        );
        // Blue is behind here: for Blue the press is nothing.
        assert_eq!(evaluate_pressing(&near, Color::Blue), evaluate(&near, Color::Blue));
    }
}
