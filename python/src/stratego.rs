//! Stratego for Python: the ruleset from OpenSpiel parameters, the setups
//! the OpenSpiel game deals, and `StrategoState`, one engine state with the
//! piece histories its full observation needs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::str::FromStr;

use numpy::{PyArray3, PyArrayMethods, PyReadwriteArray1};
use pyo3::prelude::*;
use rand::SeedableRng;
use stratego_contract::canonical::CanonicalSettings;
use stratego_engine::{
    Color, CountingPrior, Encoder, HistoryFeatures, Layout, Move, Piece, PieceSet, PieceType, Ruleset, Setup, Square,
    State, NUM_ACTIONS,
};
use stratego_players::reconstruct::public_replay;
use stratego_players::view::public_history;
use stratego_players::{AgentRng, InfoView, SetupPolicy};

use crate::infostate::{self, Recall};
use crate::{action_id, value_error};

/// The stream the OpenSpiel game's deals are drawn from: deal `i` of a
/// setup source is the setup it draws from `stream_seed(DEAL_SEED, "deal", i)`,
/// the same for either side and on every machine.
const DEAL_SEED: u64 = 0x5354_5241_5445_474f; // "STRATEGO"

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(stratego_parameters, m)?)?;
    m.add_function(wrap_pyfunction!(ruleset_text, m)?)?;
    m.add_function(wrap_pyfunction!(ruleset_id, m)?)?;
    m.add_function(wrap_pyfunction!(ruleset_parameters, m)?)?;
    m.add_function(wrap_pyfunction!(deal_setup, m)?)?;
    m.add_function(wrap_pyfunction!(layout_channels, m)?)?;
    m.add_function(wrap_pyfunction!(stratego_action_to_string, m)?)?;
    m.add_function(wrap_pyfunction!(stratego_information_state_sections, m)?)?;
    m.add_function(wrap_pyfunction!(dealing_information_state_string, m)?)?;
    m.add_function(wrap_pyfunction!(write_dealing_information_state, m)?)?;
    m.add("MAX_INFORMATION_STATE_PLIES", infostate::MAX_TENSOR_PLIES)?;
    m.add("NUM_ACTIONS", NUM_ACTIONS)?;
    m.add("MAX_DEALS", MAX_DEALS)?;
    m.add("PIECE_LETTERS", PieceType::ALL.iter().map(|t| t.letter().to_string()).collect::<Vec<_>>())?;
    m.add("END_REASONS", stratego_engine::state::EndReason::ALL.iter().map(|r| r.name()).collect::<Vec<_>>())?;
    m.add_class::<StrategoState>()?;
    Ok(())
}

/// The ruleset keys with their classic values, in canonical order: the
/// OpenSpiel game's rule parameters and their defaults.
#[pyfunction]
fn stratego_parameters() -> Vec<(String, String)> {
    Ruleset::classic().parameters()
}

/// The canonical ruleset text of `params` (ruleset keys to values; a key not
/// given keeps its classic value). Unknown keys and bad values are a
/// `ValueError` with the engine's message.
#[pyfunction]
pub(crate) fn ruleset_text(params: BTreeMap<String, String>) -> PyResult<String> {
    Ok(ruleset_from(&params)?.canonical())
}

/// The keys and values of a ruleset text (canonical or preset), in
/// canonical order.
#[pyfunction]
fn ruleset_parameters(rules: &str) -> PyResult<Vec<(String, String)>> {
    Ok(parse_rules(rules)?.parameters())
}

/// The ruleset's short id (8 hex digits).
#[pyfunction]
fn ruleset_id(rules: &str) -> PyResult<String> {
    Ok(parse_rules(rules)?.id().to_string())
}

pub(crate) fn ruleset_from(params: &BTreeMap<String, String>) -> PyResult<Ruleset> {
    crate::settings_from(Ruleset::classic(), params)
}

/// A ruleset from its canonical text, or from a preset name (`classic`,
/// `barrage`).
pub(crate) fn parse_rules(text: &str) -> PyResult<Ruleset> {
    match Ruleset::named(text) {
        Some(named) => Ok(named),
        None => Ruleset::from_str(text).map_err(value_error),
    }
}

/// A ruleset argument from Python: a canonical text, a preset name, or a
/// dict of ruleset keys to values (the OpenSpiel parameters).
pub(crate) fn rules_arg(rules: &Bound<'_, PyAny>) -> PyResult<Ruleset> {
    if let Ok(text) = rules.extract::<String>() {
        return parse_rules(&text);
    }
    let params: BTreeMap<String, Bound<'_, PyAny>> = rules
        .extract()
        .map_err(|_| value_error("rules must be a ruleset text, `classic`, `barrage` or a dict of ruleset keys"))?;
    let params = params
        .into_iter()
        .map(|(k, v)| Ok((k, v.str()?.to_string())))
        .collect::<PyResult<BTreeMap<String, String>>>()?;
    ruleset_from(&params)
}

/// `action` of `player` (in that player's frame) as `b2-b5` in absolute
/// squares, whoever is to move: how OpenSpiel names the actions of a history.
#[pyfunction]
fn stratego_action_to_string(action: i64, player: i64) -> PyResult<String> {
    let action = action_id(action, NUM_ACTIONS)?;
    let mv = Move::from_action(action, parse_player(player)?).expect("every id below NUM_ACTIONS decodes");
    Ok(mv.to_string())
}

pub(crate) fn parse_setup_policy(source: &str) -> PyResult<SetupPolicy> {
    SetupPolicy::from_str(source).map_err(value_error)
}

/// The most deals (chance outcomes per setup) a game may list: the deal
/// indices are 0 to `MAX_DEALS - 1`.
pub(crate) const MAX_DEALS: u64 = 1 << 20;

/// Deal `index` (below `MAX_DEALS`) of the setup source `source` (`random`,
/// `handcrafted` or `handcrafted-v2`) for the piece set `pieces`, as a setup
/// text (40 letters, the owner's back row first).
#[pyfunction]
fn deal_setup(pieces: &str, source: &str, index: u64) -> PyResult<String> {
    if index >= MAX_DEALS {
        return Err(value_error(format!("deal {index} is not one of the deals 0-{}", MAX_DEALS - 1)));
    }
    let set = PieceSet::from_name(pieces)
        .ok_or_else(|| value_error(format!("piece set `{pieces}` is not classic or barrage")))?;
    let policy = parse_setup_policy(source)?;
    let mut rng = AgentRng::seed_from_u64(stratego_contract::seed::stream_seed(DEAL_SEED, "deal", index));
    Ok(policy.choose(set, &mut rng).to_string())
}

/// The planes of an observation layout (`compact` 58, `full` 488).
#[pyfunction]
fn layout_channels(layout: &str) -> PyResult<usize> {
    Ok(parse_layout(layout)?.channels())
}

pub(crate) fn parse_layout(name: &str) -> PyResult<Layout> {
    Layout::from_name(name).map_err(value_error)
}

/// The sections of the information-state tensor under `rules`, in order:
/// `(name, shape)` pairs (python/src/infostate.rs). A ply cap above
/// `MAX_INFORMATION_STATE_PLIES` is a `ValueError`.
#[pyfunction]
fn stratego_information_state_sections(rules: &str) -> PyResult<Vec<(&'static str, Vec<usize>)>> {
    let max_plies = parse_rules(rules)?.max_plies;
    infostate::check_cap(max_plies)?;
    Ok(infostate::sections(max_plies))
}

/// The recall of `player` before play: no setup dealt (`red_setup` None)
/// or Red's setup dealt (its text) and Blue's not yet.
fn dealing_recall(rules: &str, player: i64, red_setup: Option<&str>) -> PyResult<(Ruleset, Recall)> {
    let rules = parse_rules(rules)?;
    let me = parse_player(player)?;
    let red = red_setup.map(|text| Setup::parse(text, rules.piece_set)).transpose().map_err(value_error)?;
    Ok((rules, Recall::dealing(me, red.as_ref())))
}

/// `player`'s information-state string before both setups are dealt.
#[pyfunction]
#[pyo3(signature = (rules, player, red_setup = None))]
fn dealing_information_state_string(rules: &str, player: i64, red_setup: Option<&str>) -> PyResult<String> {
    Ok(dealing_recall(rules, player, red_setup)?.1.text())
}

/// Writes `player`'s information-state tensor before both setups are dealt
/// into `out` (a contiguous float32 array of the tensor's length).
#[pyfunction]
#[pyo3(signature = (rules, player, red_setup, out))]
fn write_dealing_information_state(
    rules: &str,
    player: i64,
    red_setup: Option<&str>,
    mut out: PyReadwriteArray1<'_, f32>,
) -> PyResult<()> {
    let (rules, recall) = dealing_recall(rules, player, red_setup)?;
    write_recall(&recall, rules.max_plies, &mut out)
}

fn write_recall(recall: &Recall, max_plies: u32, out: &mut PyReadwriteArray1<'_, f32>) -> PyResult<()> {
    infostate::check_cap(max_plies)?;
    let out = out.as_slice_mut().map_err(|_| value_error("the information-state buffer is not contiguous"))?;
    recall.write(max_plies, out).map_err(value_error)
}

pub(crate) fn parse_player(player: i64) -> PyResult<Color> {
    match player {
        0 => Ok(Color::Red),
        1 => Ok(Color::Blue),
        _ => Err(value_error(format!("player {player} is not 0 (Red) or 1 (Blue)"))),
    }
}

/// One game of Stratego after the setups: the engine's state (which keeps
/// the whole move history) and the piece histories of the full layout,
/// updated ply by ply.
#[pyclass(module = "stratego_lab._core")]
#[derive(Clone)]
pub struct StrategoState {
    pub(crate) state: State,
    history: HistoryFeatures,
}

impl StrategoState {
    pub(crate) fn new(state: State) -> StrategoState {
        let history = HistoryFeatures::from_state(&state);
        StrategoState { state, history }
    }

    /// The opponent's pieces `me` has not seen, by absolute square index.
    fn hidden(&self, me: Color) -> impl Iterator<Item = (usize, Piece)> + '_ {
        self.state.board().pieces().filter(move |(_, p)| p.color != me && !p.revealed).map(|(sq, p)| (sq.index(), p))
    }

    fn observer(&self, player: i64) -> PyResult<Encoder<'_>> {
        Ok(Encoder::new(&self.state, parse_player(player)?, Some(&self.history)))
    }
}

engine_state_methods!(StrategoState, NUM_ACTIONS);

#[pymethods]
impl StrategoState {
    /// The start of a game under `rules` (canonical text or preset name)
    /// from Red's and Blue's setup texts.
    #[staticmethod]
    fn from_setups(rules: &str, red: &str, blue: &str) -> PyResult<StrategoState> {
        let rules = parse_rules(rules)?;
        let red = Setup::parse(red, rules.piece_set).map_err(value_error)?;
        let blue = Setup::parse(blue, rules.piece_set).map_err(value_error)?;
        Ok(StrategoState::new(State::from_setups(rules, &red, &blue).map_err(value_error)?))
    }

    /// Reads `serialize`'s text; with `rules`, refuses a state of another
    /// ruleset (naming both).
    #[staticmethod]
    #[pyo3(signature = (text, rules = None))]
    fn deserialize(text: &str, rules: Option<&str>) -> PyResult<StrategoState> {
        let state = match rules {
            Some(rules) => State::deserialize_under(&parse_rules(rules)?, text),
            None => State::deserialize(text),
        }
        .map_err(value_error)?;
        Ok(StrategoState::new(state))
    }

    /// The ruleset's canonical text.
    fn rules(&self) -> String {
        self.state.rules().canonical()
    }

    /// Plays an action id of the side to move (in its own frame); an
    /// illegal one is a `ValueError` saying why, and changes nothing.
    fn apply_action(&mut self, action: i64) -> PyResult<()> {
        let action = action_id(action, NUM_ACTIONS)?;
        let before = self.state.board().clone();
        self.state.apply_action(action).map_err(value_error)?;
        self.history.update(&self.state, &before);
        Ok(())
    }

    /// The action id of a legal move of the side to move written `b2-b5`
    /// (or `b2xb5`).
    fn string_to_action(&self, text: &str) -> PyResult<u16> {
        let mv = Move::from_str(text).map_err(value_error)?;
        let player = self.state.current_player().ok_or_else(|| value_error("the game is over: no move is legal"))?;
        if let Some(reason) = self.state.refusal(mv) {
            return Err(value_error(format!("illegal move {mv}: {reason}")));
        }
        mv.to_action(player).ok_or_else(|| value_error(format!("{mv} is not a move along a line")))
    }

    /// Writes `player`'s observation in `layout` (`compact` or `full`) into
    /// `out`, a contiguous float32 array of the layout's size, in place.
    fn write_observation(&self, player: i64, layout: &str, mut out: PyReadwriteArray1<'_, f32>) -> PyResult<()> {
        let layout = parse_layout(layout)?;
        let encoder = self.observer(player)?;
        let out = out.as_slice_mut().map_err(|_| value_error("the observation buffer is not contiguous"))?;
        encoder.write(layout, out).map_err(value_error)
    }

    /// `player`'s observation in `layout`: a new `[C, 10, 10]` float32 array.
    fn observation<'py>(&self, py: Python<'py>, player: i64, layout: &str) -> PyResult<Bound<'py, PyArray3<f32>>> {
        let layout = parse_layout(layout)?;
        let encoder = self.observer(player)?;
        let array = PyArray3::<f32>::zeros(py, [layout.channels(), 10, 10], false);
        {
            let mut rw = array.readwrite();
            encoder.write(layout, rw.as_slice_mut().expect("a new array is contiguous")).map_err(value_error)?;
        }
        Ok(array)
    }

    /// The board as `player` sees it now, with the public counters: own
    /// pieces by letter (`*` once the opponent has seen them), opponent
    /// pieces by lower-case letter once revealed, else `?` (`?m` once moved).
    fn observation_string(&self, player: i64) -> PyResult<String> {
        Ok(view_text(&self.state, parse_player(player)?))
    }

    /// Everything `player` has known since the start: its own setup, the
    /// public record of every ply (moves, and the types battles revealed)
    /// and the outcome once the game is over.
    fn information_state_string(&self, player: i64) -> PyResult<String> {
        Ok(Recall::of(&self.state, parse_player(player)?).text())
    }

    /// Writes `player`'s information-state tensor (the same information as
    /// `information_state_string`, python/src/infostate.rs) into `out`, a
    /// contiguous float32 array of its length, in place.
    fn write_information_state(&self, player: i64, mut out: PyReadwriteArray1<'_, f32>) -> PyResult<()> {
        let recall = Recall::of(&self.state, parse_player(player)?);
        write_recall(&recall, self.state.rules().max_plies, &mut out)
    }

    /// A state drawn from `player`'s information state: the opponent's
    /// hidden types drawn (seeded by `seed`) uniformly among those
    /// consistent with what `player` has seen, whose marginals are the
    /// counting prior, and the whole public history replayed on them
    /// (`stratego_players::reconstruct`). Its information-state string for
    /// `player` equals this state's. Only the side to move can be resampled:
    /// the replay checks the draw against the mover's view (its legal moves
    /// included), and the other side's legal moves, which decide whether the
    /// game is over, depend on the types being drawn.
    fn resample(&self, player: i64, seed: u64) -> PyResult<StrategoState> {
        let me = parse_player(player)?;
        if self.state.current_player() != Some(me) {
            return Err(value_error(format!(
                "only the player to move can be resampled ({me} asked, {} to move)",
                match self.state.current_player() {
                    Some(c) => c.to_string(),
                    None => "nobody: the game is over, and nobody".to_string(),
                }
            )));
        }
        let history = public_history(&self.state);
        let view = InfoView::new(&self.state, &history);
        let mut rng = AgentRng::seed_from_u64(seed);
        let state = public_replay(&view, &mut rng).map_err(value_error)?;
        // The replay already checks the view; the information state is the
        // promise OpenSpiel's callers rely on, so it is checked too.
        if Recall::of(&state, me).text() != Recall::of(&self.state, me).text() {
            return Err(value_error("the resampled state's information state differs from the original's"));
        }
        Ok(StrategoState::new(state))
    }

    /// The counting prior of `player` over the opponent's hidden pieces:
    /// `(square, probabilities)` per hidden piece, the square an absolute
    /// index (`row * 10 + column`), the probabilities over `PIECE_LETTERS`.
    fn counting_prior(&self, player: i64) -> PyResult<Vec<(usize, [f32; PieceType::COUNT])>> {
        let me = parse_player(player)?;
        let prior = CountingPrior::new(&self.state, me);
        Ok(self.hidden(me).map(|(sq, piece)| (sq, *prior.of(&piece))).collect())
    }

    /// The true types of the opponent's pieces hidden from `player`:
    /// `(square, letter)`, squares as in `counting_prior`.
    fn hidden_types(&self, player: i64) -> PyResult<Vec<(usize, String)>> {
        let me = parse_player(player)?;
        Ok(self.hidden(me).map(|(sq, piece)| (sq, piece.kind.letter().to_string())).collect())
    }

    fn __str__(&self) -> String {
        self.state.serialize()
    }

    fn __repr__(&self) -> String {
        format!("StrategoState(ply {}, {})", self.state.ply(), self.state.rules().id())
    }
}

/// `observation_string`'s text.
fn view_text(state: &State, me: Color) -> String {
    let mover = match state.current_player() {
        Some(c) => format!("{c} to move"),
        None => "game over".to_string(),
    };
    let mut text =
        format!("{me}'s view, ply {}, {mover}, {} plies without a battle\n", state.ply(), state.battleless());
    for row in (0..10u8).rev() {
        let _ = write!(text, "{:>2} ", row + 1);
        for col in 0..10u8 {
            let sq = Square::from_row_col(row, col).expect("rows and columns 0-9");
            let cell = match state.board()[sq] {
                _ if sq.is_lake() => "~ ".to_string(),
                None => ". ".to_string(),
                Some(p) if p.color == me => format!("{}{}", p.kind.letter(), if p.revealed { '*' } else { ' ' }),
                Some(p) if p.revealed => format!("{} ", p.kind.letter().to_ascii_lowercase()),
                Some(p) => format!("?{}", if p.moved { 'm' } else { ' ' }),
            };
            text.push_str(&cell);
        }
        text.push('\n');
    }
    text.push_str("   a b c d e f g h i j\n");
    for color in Color::BOTH {
        let lost = state.lost(color);
        let _ = write!(text, "{color} lost:");
        for kind in PieceType::ALL {
            if lost[kind.index()] > 0 {
                let _ = write!(text, " {}x{}", kind.letter(), lost[kind.index()]);
            }
        }
        text.push('\n');
    }
    text
}
