//! Hand-checked contents of the observation planes (docs/OBSERVATIONS.md).
//!
//! Every test builds a small hand-made position (one-line position text, see
//! `position.rs`), plays a few moves and asserts the exact contents of the
//! planes it is about: the set of squares that are 1, or the value on each
//! square, with every other square 0. Planes are looked up by name; squares
//! are written as absolute square names and converted to the viewer's frame
//! by the helpers, except where a test deliberately checks a raw index.
//!
//! Sections:
//!  1. Compact set: board planes, beliefs, own flags, counters, last move,
//!     own remaining fractions
//!  2. Full set: threat, evade, active adjacency, protection (the history
//!     planes), death causes, starting squares, move history, history planes
//!     of revealed pieces, opponent probabilities and own_seen_by_opponent
//!  3. Frames: Blue's view is the 180-degree rotation of the same scenario

use std::collections::BTreeMap;

use stratego_engine::{observe, Color, Encoder, HistoryFeatures, Layout, PieceType, Ruleset, Square, State};

// ---- helpers ---------------------------------------------------------------

const LAKES: [&str; 8] = ["c5", "d5", "g5", "h5", "c6", "d6", "g6", "h6"];

/// Plane labels of the per-code plane groups (docs: T12, T11u, T11b, T10, T13).
#[rustfmt::skip]
const T12: &[&str] = &[
    "spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major", "colonel", "general", "marshal", "flag", "bomb",
];
#[rustfmt::skip]
const T11U: &[&str] =
    &["spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major", "colonel", "general", "marshal", "unknown"];
#[rustfmt::skip]
const T11B: &[&str] =
    &["spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major", "colonel", "general", "marshal", "bomb"];
#[rustfmt::skip]
const T10: &[&str] = &["spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major", "colonel", "general", "marshal"];
#[rustfmt::skip]
const T13: &[&str] = &[
    "spy", "scout", "miner", "sergeant", "lieutenant", "captain", "major", "colonel", "general", "marshal", "bomb", "empty",
    "unknown",
];

/// A board text from a list of (square, token): the token is a piece letter
/// (upper case Red, lower case Blue) optionally followed by `^` (revealed) and
/// `+` (moved). Unlisted squares are `.` or, on lakes, `~`.
fn board(pieces: &[(&str, &str)]) -> String {
    let mut cells: Vec<Vec<String>> = (0..10u8)
        .map(|row| {
            (0..10u8)
                .map(|col| if Square::from_row_col(row, col).unwrap().is_lake() { "~" } else { "." }.to_string())
                .collect()
        })
        .collect();
    for &(name, token) in pieces {
        let s = sq(name);
        cells[s.row() as usize][s.col() as usize] = token.to_string();
    }
    (0..10).rev().map(|row| cells[row].concat()).collect::<Vec<_>>().join("/")
}

/// A game: the root position text (with its counters) followed by `moves`,
/// replayed by `State::deserialize`.
fn game_at(rules: &Ruleset, pieces: &[(&str, &str)], side: &str, ply: u32, battleless: u32, moves: &[&str]) -> State {
    let mut text = format!("{} {} {side} {ply} {battleless}", rules.canonical(), board(pieces));
    if !moves.is_empty() {
        text.push_str(" moves");
        for m in moves {
            text.push(' ');
            text.push_str(m);
        }
    }
    State::deserialize(&text).unwrap_or_else(|e| panic!("test game must replay: {e}\n{text}"))
}

/// A classic-ruleset game from ply 0.
fn game(pieces: &[(&str, &str)], side: &str, moves: &[&str]) -> State {
    game_at(&Ruleset::classic(), pieces, side, 0, 0, moves)
}

fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("bad square in test: {e}"))
}

/// The cell of an absolute square in `viewer`'s frame.
fn cell(name: &str, viewer: Color) -> usize {
    sq(name).in_frame(viewer).index()
}

/// Every square name, lakes included.
fn all_squares() -> Vec<String> {
    Square::all().map(|s| s.to_string()).collect()
}

/// The index of the plane called `name`.
fn plane_index(layout: Layout, name: &str) -> usize {
    layout
        .planes()
        .iter()
        .find(|p| p.name == name)
        .map(|p| p.index)
        .unwrap_or_else(|| panic!("no plane `{name}` in the {layout} layout"))
}

/// The 100 values of the plane called `name`.
fn plane<'a>(obs: &'a [f32], layout: Layout, name: &str) -> &'a [f32] {
    let i = plane_index(layout, name);
    &obs[i * Square::COUNT..(i + 1) * Square::COUNT]
}

/// The names `prefix_label` of a plane group.
fn group(prefix: &str, labels: &[&str]) -> Vec<String> {
    labels.iter().map(|l| format!("{prefix}_{l}")).collect()
}

/// The full set's interaction-history planes (threat, evade, active
/// adjacency, protection), for both sides.
fn history_planes() -> Vec<String> {
    let mut names = Vec::new();
    for prefix in [
        "we_threatened",
        "we_evaded",
        "we_actively_adjacent",
        "they_threatened",
        "they_evaded",
        "they_actively_adjacent",
    ] {
        names.extend(group(prefix, T11U));
    }
    for side in ["our", "their"] {
        for rel in ["protected", "protected_against", "was_protected_by", "was_protected_against"] {
            names.extend(group(&format!("{side}_{rel}"), T13));
        }
    }
    names
}

/// The full set's dead-piece and death-cause planes, for both sides.
fn death_planes() -> Vec<String> {
    let mut names = Vec::new();
    for side in ["own", "opponent"] {
        names.extend(group(&format!("{side}_dead"), T11B));
        for cause in 0..6 {
            names.extend(group(&format!("{side}_death_cause{cause}"), T10));
        }
    }
    names
}

/// One observation with the layout and viewer it was written for.
struct Obs {
    values: Vec<f32>,
    layout: Layout,
    viewer: Color,
}

impl Obs {
    /// `observe`: the side to move's observation.
    fn of(state: &State, layout: Layout) -> Obs {
        Obs { values: observe(state, layout), layout, viewer: state.to_move() }
    }

    /// `viewer`'s observation of `state` (whoever is to move), by the encoder.
    fn seen_by(state: &State, layout: Layout, viewer: Color) -> Obs {
        let history = HistoryFeatures::from_state(state);
        let mut values = vec![0.0; layout.size()];
        Encoder::new(state, viewer, Some(&history)).write(layout, &mut values).unwrap();
        Obs { values, layout, viewer }
    }

    fn plane(&self, name: &str) -> &[f32] {
        plane(&self.values, self.layout, name)
    }

    /// The non-zero cells of a plane as (absolute square, value).
    fn marks(&self, name: &str) -> Vec<(String, f32)> {
        self.plane(name)
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0.0)
            .map(|(c, &v)| (Square::new(c as u8).unwrap().in_frame(self.viewer).to_string(), v))
            .collect()
    }

    /// The plane holds exactly `expected` (absolute squares) and 0 elsewhere.
    fn assert_plane(&self, name: &str, expected: &[(&str, f32)]) {
        let mut want = [0.0f32; Square::COUNT];
        for &(s, v) in expected {
            let c = cell(s, self.viewer);
            assert_eq!(want[c], 0.0, "{s} listed twice for {name}");
            want[c] = v;
        }
        let got = self.plane(name);
        let ok = got.iter().zip(want.iter()).all(|(g, w)| (g - w).abs() < 1e-6);
        assert!(
            ok,
            "{} plane `{name}` seen by {}:\n  expected {expected:?}\n  got      {:?}",
            self.layout,
            self.viewer,
            self.marks(name)
        );
    }

    /// The plane is 1 on exactly these squares.
    fn assert_ones(&self, name: &str, squares: &[&str]) {
        let expected: Vec<(&str, f32)> = squares.iter().map(|&s| (s, 1.0)).collect();
        self.assert_plane(name, &expected);
    }

    /// The plane holds `value` on every square.
    fn assert_everywhere(&self, name: &str, value: f32) {
        let got = self.plane(name);
        assert!(
            got.iter().all(|&g| (g - value).abs() < 1e-6),
            "{} plane `{name}` seen by {}: expected {value} everywhere, got {:?}",
            self.layout,
            self.viewer,
            self.marks(name)
        );
    }

    /// Among the planes `names`, those in `expected` are 1 on exactly the
    /// listed squares and every other one is 0 everywhere.
    fn assert_only(&self, names: &[String], expected: &[(&str, &[&str])]) {
        let mut want: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for &(name, squares) in expected {
            assert!(names.iter().any(|n| n == name), "`{name}` is not one of the planes checked");
            want.entry(name).or_default().extend_from_slice(squares);
        }
        for name in names {
            let squares = want.get(name.as_str()).cloned().unwrap_or_default();
            self.assert_ones(name, &squares);
        }
    }

    /// The interaction-history planes hold exactly `expected`.
    fn assert_histories(&self, expected: &[(&str, &[&str])]) {
        self.assert_only(&history_planes(), expected);
    }

    /// For the 12 planes `prefix_<type>`: the squares in `expected` carry the
    /// listed (type, probability) values; everything else is 0.
    fn assert_distributions(&self, prefix: &str, expected: &[(&str, &[(&str, f32)])]) {
        for &t in T12 {
            let name = format!("{prefix}_{t}");
            let values: Vec<(&str, f32)> = expected
                .iter()
                .filter_map(|&(s, dist)| dist.iter().find(|(k, _)| *k == t).map(|&(_, p)| (s, p)))
                .filter(|&(_, p)| p != 0.0)
                .collect();
            for &(_, dist) in expected {
                assert!(dist.iter().all(|(k, _)| T12.contains(k)), "bad type in test: {dist:?}");
            }
            self.assert_plane(&name, &values);
        }
    }
}

// ---- 1. Compact set --------------------------------------------------------

/// Pieces of every kind of visibility, for the board and belief planes.
const MIXED: [(&str, &str); 11] = [
    ("a1", "F"),
    ("b1", "B"),
    ("c2", "O^+"), // revealed, moved scout
    ("d2", "S+"),  // hidden, moved spy
    ("e4", "M"),   // hidden, unmoved marshal
    ("j10", "f"),
    ("i10", "b^"), // revealed bomb
    ("e7", "g^+"), // revealed, moved general
    ("a7", "o+"),  // hidden, moved scout
    ("e9", "c"),   // hidden colonel
    ("f9", "n"),   // hidden miner
];

/// The board planes of the compact set: own pieces by type, revealed opponent
/// pieces by type, hidden opponent pieces split by whether they moved, empty
/// squares (lakes excluded), lakes, own moved and own revealed, for both
/// viewers.
#[test]
fn compact_board_planes_by_type_and_visibility() {
    let pieces = MIXED;
    let occupied: Vec<&str> = pieces.iter().map(|p| p.0).collect();
    let empty: Vec<String> =
        all_squares().into_iter().filter(|s| !LAKES.contains(&s.as_str()) && !occupied.contains(&s.as_str())).collect();
    let empty: Vec<&str> = empty.iter().map(|s| s.as_str()).collect();
    assert_eq!(empty.len(), 81);

    let red = Obs::of(&game(&pieces, "red", &[]), Layout::Compact);
    let own: &[(&str, &[&str])] = &[
        ("own_flag", &["a1"]),
        ("own_bomb", &["b1"]),
        ("own_scout", &["c2"]),
        ("own_spy", &["d2"]),
        ("own_marshal", &["e4"]),
        ("revealed_opponent_bomb", &["i10"]),
        ("revealed_opponent_general", &["e7"]),
    ];
    let mut names = group("own", T12);
    names.extend(group("revealed_opponent", T12));
    red.assert_only(&names, own);
    red.assert_ones("hidden_unmoved", &["j10", "e9", "f9"]);
    red.assert_ones("hidden_moved", &["a7"]);
    red.assert_ones("empty", &empty);
    red.assert_ones("lake", &LAKES);
    red.assert_ones("own_moved", &["c2", "d2"]);
    red.assert_ones("own_revealed", &["c2"]);
    // The documented indices of the empty and lake planes.
    assert_eq!(plane_index(Layout::Compact, "empty"), 26);
    assert_eq!(plane_index(Layout::Compact, "lake"), 27);

    let blue = Obs::of(&game(&pieces, "blue", &[]), Layout::Compact);
    blue.assert_only(
        &names,
        &[
            ("own_flag", &["j10"]),
            ("own_bomb", &["i10"]),
            ("own_general", &["e7"]),
            ("own_scout", &["a7"]),
            ("own_colonel", &["e9"]),
            ("own_miner", &["f9"]),
            ("revealed_opponent_scout", &["c2"]),
        ],
    );
    blue.assert_ones("hidden_unmoved", &["a1", "b1", "e4"]);
    blue.assert_ones("hidden_moved", &["d2"]);
    blue.assert_ones("empty", &empty);
    blue.assert_ones("lake", &LAKES);
    blue.assert_ones("own_moved", &["e7", "a7"]);
    blue.assert_ones("own_revealed", &["i10", "e7"]);
    // Blue's own flag on j10 is its cell 0.
    assert_eq!(plane(&blue.values, Layout::Compact, "own_flag")[0], 1.0);
}

/// The counting-prior belief planes, by hand, on the `MIXED` pieces. Red
/// sees Blue's Flag, Colonel and Miner unmoved, a Scout moved, the General
/// revealed: unknown = {flag, scout, colonel, miner}, U = 3 movable
/// unknowns, 1 moved, 3 unmoved. Moved: 1/3 each movable type; unmoved:
/// 1 * (3 - 1) / (3 * 3) = 2/9 each movable type, Flag 1/3, Bomb 0. Blue
/// sees Red's Flag, Bomb and Marshal unmoved, the Spy moved (the Scout is
/// revealed): U = 2, moved: 1/2 Spy, 1/2 Marshal; unmoved:
/// 1 * (2 - 1) / (2 * 3) = 1/6 Spy and Marshal, 1/3 Bomb, 1/3 Flag.
#[test]
fn compact_belief_planes_follow_the_counting_prior() {
    let pieces = MIXED;
    let (third, two_ninths) = (1.0 / 3.0, 2.0 / 9.0);
    let unmoved: &[(&str, f32)] =
        &[("scout", two_ninths), ("miner", two_ninths), ("colonel", two_ninths), ("flag", third)];
    let red = Obs::of(&game(&pieces, "red", &[]), Layout::Compact);
    red.assert_distributions(
        "belief",
        &[
            ("a7", &[("scout", third), ("miner", third), ("colonel", third)]),
            ("j10", unmoved),
            ("e9", unmoved),
            ("f9", unmoved),
        ],
    );

    let unmoved: &[(&str, f32)] = &[("spy", 1.0 / 6.0), ("marshal", 1.0 / 6.0), ("bomb", third), ("flag", third)];
    let blue = Obs::of(&game(&pieces, "blue", &[]), Layout::Compact);
    blue.assert_distributions(
        "belief",
        &[("d2", &[("spy", 0.5), ("marshal", 0.5)]), ("a1", unmoved), ("b1", unmoved), ("e4", unmoved)],
    );
}

/// Three hidden Blue pieces, one of which moved (Flag and Scout unmoved,
/// Major moved): U = 2, moved: 1/2 Scout, 1/2 Major; unmoved: 1/4 Scout,
/// 1/4 Major, 1/2 Flag. Then (a) the Major attacks Red's Marshal and dies:
/// unknown = {flag, scout}, both unmoved: 1/2 Scout, 1/2 Flag; (b) the Scout
/// moves too: the two moved pieces take 1/2 Scout, 1/2 Major and the unmoved
/// one is the Flag for sure.
#[test]
fn compact_beliefs_of_three_hidden_pieces_through_a_loss_and_a_move() {
    let pieces = [("a1", "F"), ("e4", "M"), ("j1", "O"), ("j10", "f"), ("i10", "o"), ("e6", "j+")];
    let unmoved: &[(&str, f32)] = &[("scout", 0.25), ("major", 0.25), ("flag", 0.5)];
    let root = Obs::of(&game(&pieces, "red", &[]), Layout::Compact);
    root.assert_distributions(
        "belief",
        &[("e6", &[("scout", 0.5), ("major", 0.5)]), ("j10", unmoved), ("i10", unmoved)],
    );
    root.assert_ones("hidden_unmoved", &["j10", "i10"]);
    root.assert_ones("hidden_moved", &["e6"]);

    // Blue's view after Red's Marshal stepped: Red's Flag and Scout unmoved,
    // the Marshal moved.
    let after_step = game(&pieces, "red", &["e4-e5"]);
    let blue = Obs::of(&after_step, Layout::Compact);
    let unmoved: &[(&str, f32)] = &[("scout", 0.25), ("marshal", 0.25), ("flag", 0.5)];
    blue.assert_distributions(
        "belief",
        &[("e5", &[("scout", 0.5), ("marshal", 0.5)]), ("a1", unmoved), ("j1", unmoved)],
    );

    // (a) The Major attacks the Marshal and is lost.
    let lost = game(&pieces, "red", &["e4-e5", "e6-e5"]);
    let red = Obs::of(&lost, Layout::Compact);
    red.assert_distributions(
        "belief",
        &[("j10", &[("scout", 0.5), ("flag", 0.5)]), ("i10", &[("scout", 0.5), ("flag", 0.5)])],
    );
    red.assert_ones("hidden_unmoved", &["j10", "i10"]);
    red.assert_ones("hidden_moved", &[]);
    red.assert_ones("own_marshal", &["e5"]);
    red.assert_ones("own_moved", &["e5"]);
    red.assert_ones("own_revealed", &["e5"]);

    // (b) The Scout moves as well.
    let moved = game(&pieces, "red", &["j1-j2", "i10-i9"]);
    let red = Obs::of(&moved, Layout::Compact);
    let half: &[(&str, f32)] = &[("scout", 0.5), ("major", 0.5)];
    red.assert_distributions("belief", &[("e6", half), ("i9", half), ("j10", &[("flag", 1.0)])]);
    red.assert_ones("hidden_unmoved", &["j10"]);
    red.assert_ones("hidden_moved", &["e6", "i9"]);
    red.assert_ones("own_moved", &["j2"]);
    red.assert_ones("own_revealed", &[]);
}

/// Counter planes are ply / max-plies and battleless / max-battleless on
/// every square, from the root's counters on, up to exactly 1 at the caps
/// (the observation of a finished game is still written). Ruleset caps: 10
/// plies, 4 battleless plies.
#[test]
fn counter_fractions_from_the_root_counters_up_to_the_caps() {
    let rules = Ruleset { max_plies: 10, max_battleless_plies: 4, ..Ruleset::classic() };
    let pieces = [("a1", "F"), ("j1", "O"), ("e4", "M"), ("j10", "f"), ("a10", "o"), ("e5", "e")];
    let check = |state: &State, ply: f32, battleless: f32| {
        for layout in Layout::ALL {
            let obs = Obs::of(state, layout);
            obs.assert_everywhere("ply_fraction", ply);
            obs.assert_everywhere("battleless_fraction", battleless);
        }
    };
    // The root's own counters count: ply 6, battleless 2.
    check(&game_at(&rules, &pieces, "red", 6, 2, &[]), 0.6, 0.5);
    check(&game_at(&rules, &pieces, "red", 6, 2, &["j1-j2"]), 0.7, 0.75);
    // Exactly at the battleless cap (ply 8 of 10): the game is over.
    let capped = game_at(&rules, &pieces, "red", 6, 2, &["j1-j2", "a10-a9"]);
    assert!(capped.is_terminal());
    check(&capped, 0.8, 1.0);
    // A battle resets the battleless count; then exactly at the ply cap.
    let battle = game_at(&rules, &pieces, "red", 8, 1, &["e4-e5"]);
    check(&battle, 0.9, 0.0);
    let capped = game_at(&rules, &pieces, "red", 8, 1, &["e4-e5", "a10-a9"]);
    assert!(capped.is_terminal());
    check(&capped, 1.0, 0.25);
}

/// Last-move planes mark the last ply's source and destination (a Scout's
/// run: only its two ends) in the acting player's frame; nothing at the root.
#[test]
fn compact_last_move_source_and_destination_in_the_acting_frame() {
    let pieces = [("a1", "F"), ("e3", "L"), ("j1", "O"), ("j10", "f"), ("a10", "o"), ("e8", "l")];
    let root = Obs::of(&game(&pieces, "red", &[]), Layout::Compact);
    root.assert_ones("last_move_source", &[]);
    root.assert_ones("last_move_destination", &[]);

    // Red played e3-e4; Blue sees it rotated: e3 = cell 24 -> 75, e4 = 34 -> 65.
    let blue = Obs::of(&game(&pieces, "red", &["e3-e4"]), Layout::Compact);
    assert_eq!(blue.viewer, Color::Blue);
    blue.assert_ones("last_move_source", &["e3"]);
    blue.assert_ones("last_move_destination", &["e4"]);
    assert_eq!(plane(&blue.values, Layout::Compact, "last_move_source")[75], 1.0);
    assert_eq!(plane(&blue.values, Layout::Compact, "last_move_destination")[65], 1.0);

    // Blue's Scout ran a10-a7: Red sees a10 (cell 90) and a7 (cell 60) only.
    let red = Obs::of(&game(&pieces, "red", &["e3-e4", "a10-a7"]), Layout::Compact);
    red.assert_ones("last_move_source", &["a10"]);
    red.assert_ones("last_move_destination", &["a7"]);
    assert_eq!(plane(&red.values, Layout::Compact, "last_move_source")[90], 1.0);
    assert_eq!(plane(&red.values, Layout::Compact, "last_move_destination")[60], 1.0);
}

/// Own remaining fractions: pieces of the type on the board / the army's
/// starting count, on every square; 0 where the army has none of the type.
/// Red loses its Marshal (attacking a Bomb) and a Scout (attacked).
#[test]
fn own_remaining_fractions_after_losses() {
    let pieces = [
        ("a1", "F"),
        ("b1", "B"),
        ("c1", "B"),
        ("a2", "O"),
        ("b2", "O"),
        ("c2", "O"),
        ("e4", "M"),
        ("j10", "f"),
        ("e5", "b"),
        ("a3", "g"),
    ];
    let expect = |obs: &Obs, fractions: &[(&str, f32)]| {
        for &t in T12 {
            let f = fractions.iter().find(|(k, _)| *k == t).map_or(0.0, |&(_, f)| f);
            obs.assert_everywhere(&format!("own_remaining_{t}"), f);
        }
    };
    let root = Obs::of(&game(&pieces, "red", &[]), Layout::Compact);
    expect(&root, &[("scout", 3.0 / 8.0), ("marshal", 1.0), ("flag", 1.0), ("bomb", 2.0 / 6.0)]);
    // The Marshal attacks the Bomb and dies; Blue sees its own army.
    let blue = Obs::of(&game(&pieces, "red", &["e4-e5"]), Layout::Compact);
    expect(&blue, &[("general", 1.0), ("flag", 1.0), ("bomb", 1.0 / 6.0)]);
    // The General takes a Scout.
    let red = Obs::of(&game(&pieces, "red", &["e4-e5", "a3-a2"]), Layout::Compact);
    expect(&red, &[("scout", 2.0 / 8.0), ("flag", 1.0), ("bomb", 2.0 / 6.0)]);

    // Barrage: the army has no Sergeant (0, not a division by zero); one of
    // its two Scouts is lost.
    let barrage = Ruleset::barrage();
    let pieces = [("a1", "F"), ("a2", "O"), ("e4", "O"), ("e2", "M"), ("j10", "f"), ("e5", "g")];
    let red = Obs::of(&game_at(&barrage, &pieces, "red", 0, 0, &[]), Layout::Compact);
    expect(&red, &[("scout", 1.0), ("marshal", 1.0), ("flag", 1.0)]);
    let red = Obs::of(&game_at(&barrage, &pieces, "red", 0, 0, &["e4-e5", "e5-e6"]), Layout::Compact);
    expect(&red, &[("scout", 0.5), ("marshal", 1.0), ("flag", 1.0)]);
}

// ---- 2. Full set -----------------------------------------------------------

/// The threat tests' pieces: Red's hidden Lieutenant on e3 with Blue's
/// hidden Sergeant, revealed Major and revealed Bomb around e4.
const THREAT: [(&str, &str); 8] =
    [("a1", "F"), ("e3", "L"), ("j1", "O"), ("j10", "f"), ("a10", "o"), ("e5", "e"), ("d4", "j^"), ("f4", "b^")];

/// Threat: Red's hidden Lieutenant steps e3-e4 next to a hidden Sergeant
/// (e5), a revealed Major (d4) and a revealed Bomb (f4). It records
/// {unknown, major}; the Bomb's code is not in the T11u planes. Blue sees the
/// same on Red's piece as they_threatened (Blue's pieces as Red saw them). On
/// Blue's reply, Blue's hidden Sergeant next to Red's last mover becomes
/// actively adjacent to an unknown.
#[test]
fn threat_is_recorded_on_the_hidden_mover_for_both_viewers() {
    let pieces = THREAT;
    let blue = Obs::of(&game(&pieces, "red", &["e3-e4"]), Layout::Full);
    assert_eq!(blue.viewer, Color::Blue);
    blue.assert_histories(&[("they_threatened_unknown", &["e4"]), ("they_threatened_major", &["e4"])]);
    // Red's Lieutenant, e4 = cell 34, is Blue's cell 65.
    assert_eq!(plane(&blue.values, Layout::Full, "they_threatened_major")[65], 1.0);

    let red = Obs::of(&game(&pieces, "red", &["e3-e4", "a10-a9"]), Layout::Full);
    red.assert_histories(&[
        ("we_threatened_unknown", &["e4"]),
        ("we_threatened_major", &["e4"]),
        ("they_actively_adjacent_unknown", &["e5"]),
    ]);
    // The documented index of the first threat plane.
    assert_eq!(plane_index(Layout::Full, "we_threatened_spy"), 43);
}

/// History planes are drawn only on hidden pieces: once the Lieutenant of
/// the threat test takes the Sergeant (and is revealed), every history plane
/// is empty for both viewers, although the piece's histories grew.
#[test]
fn history_planes_vanish_once_the_piece_is_revealed() {
    let pieces = THREAT;
    let state = game(&pieces, "red", &["e3-e4", "a10-a9", "e4-e5"]);
    let lieutenant = state.board()[sq("e5")].unwrap();
    assert!(lieutenant.revealed && lieutenant.kind == PieceType::Lieutenant);
    assert_ne!(HistoryFeatures::from_state(&state).of(&lieutenant).threatened, 0, "the history is still kept");
    for viewer in [Color::Red, Color::Blue] {
        Obs::seen_by(&state, Layout::Full, viewer).assert_histories(&[]);
    }

    // A Scout's run reveals it too: its threat vanishes.
    let pieces = [("a1", "F"), ("e3", "O"), ("j1", "O"), ("j10", "f"), ("a10", "o"), ("f4", "e")];
    let hidden = Obs::of(&game(&pieces, "red", &["e3-e4", "a10-a9"]), Layout::Full);
    hidden.assert_histories(&[("we_threatened_unknown", &["e4"]), ("they_actively_adjacent_unknown", &["f4"])]);
    let revealed = Obs::of(&game(&pieces, "red", &["e3-e4", "a10-a9", "e4-e6", "a9-a8"]), Layout::Full);
    revealed.assert_histories(&[("they_actively_adjacent_unknown", &["f4"])]);
}

/// Evade: Blue's revealed General steps e6-e5 next to Red's hidden Captain
/// on e4, which steps away to e3. The Captain records the General as evaded
/// and as actively adjacent (it stood next to Blue's last mover at the start
/// of Red's turn), and protected the square it left (empty, next to the
/// General). If Blue's last move was another piece's, stepping away is no
/// evasion.
#[test]
fn evade_of_the_opponents_last_mover() {
    let pieces = [("a1", "F"), ("e4", "P"), ("j1", "O"), ("j10", "f"), ("e6", "g^"), ("a10", "o")];
    let captain: &[(&str, &[&str])] = &[
        ("we_evaded_general", &["e3"]),
        ("we_actively_adjacent_general", &["e3"]),
        ("our_protected_empty", &["e3"]),
        ("our_protected_against_general", &["e3"]),
    ];
    let blue = Obs::of(&game(&pieces, "blue", &["e6-e5", "e4-e3"]), Layout::Full);
    assert_eq!(blue.viewer, Color::Blue);
    blue.assert_histories(&[
        ("they_evaded_general", &["e3"]),
        ("they_actively_adjacent_general", &["e3"]),
        ("their_protected_empty", &["e3"]),
        ("their_protected_against_general", &["e3"]),
    ]);
    let red = Obs::of(&game(&pieces, "blue", &["e6-e5", "e4-e3", "a10-a9"]), Layout::Full);
    red.assert_histories(captain);

    // Blue's last move is the Scout's: the Captain leaving e4 evades nothing.
    let red = Obs::of(&game(&pieces, "blue", &["e6-e5", "j1-j2", "a10-a9", "e4-e3", "a9-a8"]), Layout::Full);
    red.assert_histories(&[
        ("we_actively_adjacent_general", &["e3"]),
        ("our_protected_empty", &["e3"]),
        ("our_protected_against_general", &["e3"]),
    ]);
}

/// Active adjacency, first two branches. Red's Sergeant steps e3-e4 next to
/// a hidden Miner (threat: unknown). Blue's revealed Captain steps h4-g4 next
/// to Red's Lieutenant on g3. At the start of Red's next turn: the
/// Lieutenant, next to Blue's last mover, records `captain`; the Sergeant,
/// still on Red's previous destination, records the enemies next to it now
/// (the Miner: unknown) though it is not next to Blue's last mover. (The
/// Sergeant also protected the empty f4 against the Captain.) Blue's Miner
/// stood next to Red's last mover at the start of Blue's turn.
#[test]
fn active_adjacency_next_to_the_last_mover_and_on_the_previous_destination() {
    let pieces =
        [("a1", "F"), ("e3", "E"), ("g3", "L"), ("j1", "O"), ("j10", "f"), ("e5", "n"), ("h4", "p^"), ("a10", "o")];
    let red = Obs::of(&game(&pieces, "red", &["e3-e4", "h4-g4", "j1-j2", "a10-a9"]), Layout::Full);
    red.assert_histories(&[
        ("we_threatened_unknown", &["e4"]),
        ("we_actively_adjacent_unknown", &["e4"]),
        ("we_actively_adjacent_captain", &["g3"]),
        ("our_protected_empty", &["e4"]),
        ("our_protected_against_captain", &["e4"]),
        ("they_actively_adjacent_unknown", &["e5"]),
    ]);
}

/// Active adjacency, third branch: Red's Sergeant attacks a hidden General
/// and loses; the General, now revealed, stands on Red's previous
/// destination, so at Red's next turn Red's pieces next to it (the
/// Lieutenant on f5) record `general`, although Blue moved another piece
/// meanwhile.
#[test]
fn active_adjacency_next_to_the_revealed_piece_that_beat_our_attacker() {
    let pieces = [("a1", "F"), ("e4", "E"), ("f5", "L"), ("j1", "O"), ("j10", "f"), ("e5", "g"), ("a10", "o")];
    let before = Obs::of(&game(&pieces, "red", &["e4-e5", "a10-a9"]), Layout::Full);
    before.assert_histories(&[]);
    let red = Obs::of(&game(&pieces, "red", &["e4-e5", "a10-a9", "j1-j2", "a9-a8"]), Layout::Full);
    red.assert_histories(&[("we_actively_adjacent_general", &["f5"])]);
}

/// Protection: Red's hidden Major steps f3-f4 next to Red's hidden Miner on
/// e4, which stands next to Blue's revealed Colonel on e5. Triple (R = Major,
/// E = Miner, A = Colonel): the Major protected an unknown against a colonel,
/// the Miner was protected by an unknown against a colonel. The Major also
/// protects the empty f5 (next to the Colonel): `empty` on the protector
/// only. Seen by Blue as their_*.
#[test]
fn protection_marks_protector_and_protectee() {
    let pieces = [("a1", "F"), ("e4", "N"), ("f3", "J"), ("j1", "O"), ("j10", "f"), ("e5", "c^"), ("a10", "o")];
    let blue = Obs::of(&game(&pieces, "red", &["f3-f4"]), Layout::Full);
    blue.assert_histories(&[
        ("their_protected_unknown", &["f4"]),
        ("their_protected_empty", &["f4"]),
        ("their_protected_against_colonel", &["f4"]),
        ("their_was_protected_by_unknown", &["e4"]),
        ("their_was_protected_against_colonel", &["e4"]),
    ]);
    let red = Obs::of(&game(&pieces, "red", &["f3-f4", "a10-a9"]), Layout::Full);
    red.assert_histories(&[
        ("our_protected_unknown", &["f4"]),
        ("our_protected_empty", &["f4"]),
        ("our_protected_against_colonel", &["f4"]),
        ("our_was_protected_by_unknown", &["e4"]),
        ("our_was_protected_against_colonel", &["e4"]),
    ]);
    assert_eq!(plane_index(Layout::Full, "our_protected_spy"), 251);
}

/// Protection of empty squares only marks the protector; a revealed
/// protectee shows its type in the protector's `protected` set and has no
/// planes of its own (it is revealed).
#[test]
fn protection_of_an_empty_square_or_a_revealed_piece() {
    let pieces = [("a1", "F"), ("f3", "J"), ("j1", "O"), ("j10", "f"), ("e5", "c^"), ("a10", "o")];
    let red = Obs::of(&game(&pieces, "red", &["f3-f4", "a10-a9"]), Layout::Full);
    red.assert_histories(&[("our_protected_empty", &["f4"]), ("our_protected_against_colonel", &["f4"])]);

    let pieces = [("a1", "F"), ("e4", "N^"), ("f3", "J"), ("j1", "O"), ("j10", "f"), ("e5", "c^"), ("a10", "o")];
    let red = Obs::of(&game(&pieces, "red", &["f3-f4", "a10-a9"]), Layout::Full);
    red.assert_histories(&[
        ("our_protected_miner", &["f4"]),
        ("our_protected_empty", &["f4"]),
        ("our_protected_against_colonel", &["f4"]),
    ]);
}

/// A dead piece as the planes should show it.
struct Dead {
    color: Color,
    kind: &'static str,
    /// Death cause (0-5); `None` for types without death-cause planes.
    cause: Option<usize>,
    /// Battle square and starting square (in the root position).
    at: &'static str,
    start: &'static str,
}

/// Checks the dead and death-cause planes of both viewers against `dead`.
fn assert_deaths(state: &State, dead: &[Dead]) {
    for viewer in [Color::Red, Color::Blue] {
        let obs = Obs::seen_by(state, Layout::Full, viewer);
        let mut expected: Vec<(String, &str)> = Vec::new();
        for d in dead {
            let side = if d.color == viewer { "own" } else { "opponent" };
            expected.push((format!("{side}_dead_{}", d.kind), d.start));
            if let Some(cause) = d.cause {
                expected.push((format!("{side}_death_cause{cause}_{}", d.kind), d.at));
            }
        }
        let mut grouped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, s) in &expected {
            grouped.entry(name.as_str()).or_default().push(s);
        }
        let expected: Vec<(&str, &[&str])> = grouped.iter().map(|(n, s)| (*n, s.as_slice())).collect();
        obs.assert_only(&death_planes(), &expected);
    }
}

/// Cause 0: a hidden Lieutenant (started on e3) attacks a revealed Major on
/// e5; a hidden Sergeant (started on f3) attacks a revealed Bomb on f5.
#[test]
fn death_cause_0_attacked_a_revealed_stronger_piece_or_bomb() {
    let pieces =
        [("a1", "F"), ("e3", "L"), ("f3", "E"), ("j1", "O"), ("j10", "f"), ("e5", "j^"), ("f5", "b^"), ("a10", "o")];
    let state = game(&pieces, "red", &["e3-e4", "a10-a9", "e4-e5", "a9-a8", "f3-f4", "a8-a7", "f4-f5"]);
    assert_deaths(
        &state,
        &[
            Dead { color: Color::Red, kind: "lieutenant", cause: Some(0), at: "e5", start: "e3" },
            Dead { color: Color::Red, kind: "sergeant", cause: Some(0), at: "f5", start: "f3" },
        ],
    );
    assert_eq!(plane_index(Layout::Full, "own_dead_spy"), 109);
    assert_eq!(plane_index(Layout::Full, "own_death_cause0_spy"), 131);
}

/// Causes 1 and 4: Red's hidden Captain (started e3) attacks Blue's revealed
/// Captain (started e6, stepped to e5): both die on e5; Red's by cause 1,
/// Blue's (revealed, attacked, tied) by cause 4.
#[test]
fn death_causes_1_and_4_attacked_a_revealed_equal_piece() {
    let pieces = [("a1", "F"), ("e3", "P"), ("j1", "O"), ("j10", "f"), ("e6", "p^"), ("a10", "o")];
    let state = game(&pieces, "blue", &["e6-e5", "e3-e4", "a10-a9", "e4-e5"]);
    assert_deaths(
        &state,
        &[
            Dead { color: Color::Red, kind: "captain", cause: Some(1), at: "e5", start: "e3" },
            Dead { color: Color::Blue, kind: "captain", cause: Some(4), at: "e5", start: "e6" },
        ],
    );
}

/// Causes 2 and 5: Red's hidden Miner (e4) attacks a hidden Sergeant and
/// loses (cause 2, the Sergeant survives); Red's hidden Lieutenant (f4)
/// attacks a hidden Lieutenant that stepped f6-f5: both die, Red's by cause
/// 2, Blue's (hidden, attacked, tied) by cause 5.
#[test]
fn death_causes_2_and_5_battles_with_hidden_pieces() {
    let pieces =
        [("a1", "F"), ("e4", "N"), ("f4", "L"), ("j1", "O"), ("j10", "f"), ("e5", "e"), ("f6", "l"), ("a10", "o")];
    let state = game(&pieces, "red", &["e4-e5", "f6-f5", "f4-f5"]);
    assert_deaths(
        &state,
        &[
            Dead { color: Color::Red, kind: "miner", cause: Some(2), at: "e5", start: "e4" },
            Dead { color: Color::Red, kind: "lieutenant", cause: Some(2), at: "f5", start: "f4" },
            Dead { color: Color::Blue, kind: "lieutenant", cause: Some(5), at: "f5", start: "f6" },
        ],
    );
}

/// Cause 3: Blue's Scout, revealed by its run e8-e5, is taken by Red's
/// hidden Colonel. Cause 5 with a loss: Blue's hidden Spy (stepped j5-j4) is
/// struck by Red's Scout from j1. A dead Bomb (taken by a Miner) has an
/// own_dead/opponent_dead plane but no death-cause plane.
#[test]
fn death_causes_3_and_5_and_a_dead_bomb() {
    let pieces = [
        ("a1", "F"),
        ("e4", "C"),
        ("b3", "N"),
        ("j1", "O"),
        ("j10", "f"),
        ("e8", "o"),
        ("j5", "s"),
        ("b5", "b"),
        ("a10", "o"),
    ];
    let state = game(&pieces, "blue", &["e8-e5", "e4-e5", "j5-j4", "j1-j4", "a10-a9", "b3-b4", "a9-a8", "b4-b5"]);
    assert_deaths(
        &state,
        &[
            Dead { color: Color::Blue, kind: "scout", cause: Some(3), at: "e5", start: "e8" },
            Dead { color: Color::Blue, kind: "spy", cause: Some(5), at: "j4", start: "j5" },
            Dead { color: Color::Blue, kind: "bomb", cause: None, at: "b5", start: "b5" },
        ],
    );
}

/// Causes 3 and 5 seen on Red's own pieces (Blue attacks): Red's revealed
/// Sergeant (started e4) is taken on e5 by a hidden Blue Major (cause 3) and
/// Red's hidden Spy on f4 by a hidden Blue Colonel (cause 5); Blue's Major
/// then attacks Red's revealed Marshal and dies (cause 0).
#[test]
fn death_causes_of_pieces_attacked_by_blue() {
    let pieces = [
        ("a1", "F"),
        ("e4", "E^"),
        ("f4", "S"),
        ("e7", "M^"),
        ("j1", "O"),
        ("j10", "f"),
        ("e6", "j"),
        ("f5", "c"),
        ("a10", "o"),
    ];
    let state = game(&pieces, "red", &["e4-e5", "e6-e5", "j1-j2", "f5-f4", "j2-j3", "e5-e6", "j3-j2", "e6-e7"]);
    assert_deaths(
        &state,
        &[
            Dead { color: Color::Red, kind: "sergeant", cause: Some(3), at: "e5", start: "e4" },
            Dead { color: Color::Red, kind: "spy", cause: Some(5), at: "f4", start: "f4" },
            Dead { color: Color::Blue, kind: "major", cause: Some(0), at: "e7", start: "e6" },
        ],
    );
}

/// A captured Flag is in no plane: Flags have no dead or death-cause plane.
/// The finished game is still observed (for the side that would move next).
#[test]
fn a_captured_flag_is_not_drawn() {
    let pieces = [("a1", "F"), ("e4", "M"), ("j1", "O"), ("e5", "f"), ("a10", "o")];
    let state = game(&pieces, "red", &["e4-e5"]);
    assert!(state.is_terminal());
    assert_eq!(state.deaths().len(), 1);
    assert_eq!(state.deaths()[0].piece.kind, PieceType::Flag);
    assert_deaths(&state, &[]);
}

/// Starting squares (planes 355-455): on each occupied square a one-hot of
/// the cell (acting frame) its piece started on, in the root position text,
/// even where the root already marks the piece as moved; `none` on empty
/// squares and lakes. Exactly one plane of the block is 1 on every square.
#[test]
fn start_square_one_hot_from_the_root_position() {
    let pieces = [("a1", "F"), ("e4", "L+"), ("j1", "O"), ("j10", "f"), ("a10", "o"), ("e7", "e")];
    let state = game_at(&Ruleset::classic(), &pieces, "red", 4, 4, &["e4-e5", "a10-a9"]);
    let now = [("a1", "a1"), ("e5", "e4"), ("j1", "j1"), ("j10", "j10"), ("a9", "a10"), ("e7", "e7")];
    for viewer in [Color::Red, Color::Blue] {
        let obs = Obs::seen_by(&state, Layout::Full, viewer);
        let mut expected: Vec<(String, &str)> =
            now.iter().map(|&(at, start)| (format!("start_square_{}", cell(start, viewer)), at)).collect();
        let occupied: Vec<&str> = now.iter().map(|p| p.0).collect();
        let free: Vec<String> = all_squares().into_iter().filter(|s| !occupied.contains(&s.as_str())).collect();
        assert_eq!(free.len(), 94);
        for s in &free {
            expected.push(("start_square_none".to_string(), s));
        }
        let mut grouped: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (name, s) in &expected {
            grouped.entry(name.as_str()).or_default().push(s);
        }
        let expected: Vec<(&str, &[&str])> = grouped.iter().map(|(n, s)| (*n, s.as_slice())).collect();
        let names: Vec<String> =
            (0..100).map(|c| format!("start_square_{c}")).chain(["start_square_none".to_string()]).collect();
        obs.assert_only(&names, &expected);
        for c in 0..100 {
            let sum: f32 = (355..=455).map(|p| obs.values[p * 100 + c]).sum();
            assert_eq!(sum, 1.0, "one-hot on cell {c}");
        }
    }
    // By index: the Lieutenant on e5 (cell 44) started on e4 (cell 34): plane 355 + 34.
    let red = Obs::of(&state, Layout::Full);
    assert_eq!(red.values[(355 + 34) * 100 + 44], 1.0);
    assert_eq!(red.values[455 * 100 + 42], 1.0, "the lake c5 is `none`");
    // Blue sees it at cell 55 with start cell 65.
    let blue = Obs::seen_by(&state, Layout::Full, Color::Blue);
    assert_eq!(blue.values[(355 + 65) * 100 + 55], 1.0);
}

/// Move history: plane 487 (`move_t-1`) holds the last ply, -1 on its
/// source and +1 on its destination, earlier plies in the planes before it,
/// planes before the game's first ply (from the root) are 0, all in the
/// acting player's frame. An attack marks its destination even when the
/// attacker died.
#[test]
fn move_history_after_a_few_plies() {
    let pieces = [("a1", "F"), ("e3", "L"), ("j1", "O"), ("j10", "f"), ("a10", "o"), ("e8", "e"), ("j7", "b")];
    let moves = ["e3-e4", "a10-a7", "j1-j7", "e8-e9"];
    let check = |obs: &Obs, plies: &[&str]| {
        for k in 1..=32 {
            let name = format!("move_t-{k}");
            match plies.len().checked_sub(k).map(|i| plies[i]) {
                Some(m) => {
                    let (from, to) = m.split_once('-').unwrap();
                    obs.assert_plane(&name, &[(from, -1.0), (to, 1.0)]);
                }
                None => obs.assert_plane(&name, &[]),
            }
        }
    };
    // Root at ply 7: no history yet.
    let root = Obs::of(&game_at(&Ruleset::classic(), &pieces, "red", 7, 7, &[]), Layout::Full);
    check(&root, &[]);
    for n in 1..=moves.len() {
        let state = game_at(&Ruleset::classic(), &pieces, "red", 7, 7, &moves[..n]);
        let obs = Obs::of(&state, Layout::Full);
        check(&obs, &moves[..n]);
    }
    // Raw indices for Red after all four plies: e8 (cell 74) -1, e9 (84) +1 in plane 487.
    let red = Obs::of(&game(&pieces, "red", &moves), Layout::Full);
    assert_eq!(plane_index(Layout::Full, "move_t-1"), 487);
    assert_eq!(red.values[487 * 100 + 74], -1.0);
    assert_eq!(red.values[487 * 100 + 84], 1.0);
    assert_eq!(red.values[484 * 100 + 24], -1.0, "e3-e4 (e3 = cell 24) four plies ago");
    // Blue after three plies: Red's j1-j7 is cells 90 -> 30 in Blue's frame.
    let blue = Obs::of(&game(&pieces, "red", &moves[..3]), Layout::Full);
    assert_eq!(blue.values[487 * 100 + 90], -1.0);
    assert_eq!(blue.values[487 * 100 + 30], 1.0);
}

/// Only the last 32 plies are kept: after 34 plies the first two are gone.
#[test]
fn move_history_keeps_the_last_32_plies() {
    let pieces = [("a1", "F"), ("e3", "L"), ("j10", "f"), ("e8", "l")];
    let red_cycle = ["e3-e2", "e2-f2", "f2-f3", "f3-e3"];
    let blue_cycle = ["e8-e9", "e9-f9", "f9-f8", "f8-e8"];
    let moves: Vec<&str> = (0..17).flat_map(|i| [red_cycle[i % 4], blue_cycle[i % 4]]).collect();
    assert_eq!(moves.len(), 34);
    let obs = Obs::of(&game(&pieces, "red", &moves), Layout::Full);
    for k in 1..=32 {
        let (from, to) = moves[34 - k].split_once('-').unwrap();
        obs.assert_plane(&format!("move_t-{k}"), &[(from, -1.0), (to, 1.0)]);
    }
}

/// Opponent probabilities: one-hot for a revealed piece, the counting prior
/// for hidden ones (Blue: Flag and Miner unmoved, Scout moved, General
/// revealed: moved 1/2 Scout, 1/2 Miner; unmoved 1/4, 1/4, Flag 1/2).
/// own_seen_by_opponent: one-hot on Red's revealed Marshal, Blue's prior on
/// Red's hidden pieces (Flag and Bomb unmoved, Spy moved: the Spy for sure,
/// the unmoved ones 1/2 Bomb, 1/2 Flag). After Blue's Miner moves, both
/// moved pieces are 1/2 Scout, 1/2 Miner and the unmoved one is the Flag.
#[test]
fn opponent_probabilities_and_own_seen_by_opponent() {
    let pieces =
        [("a1", "F"), ("b1", "B"), ("c2", "S+"), ("e4", "M^"), ("j10", "f"), ("i9", "n"), ("a7", "o+"), ("e7", "g^")];
    let red = Obs::of(&game(&pieces, "red", &[]), Layout::Full);
    let unmoved: &[(&str, f32)] = &[("scout", 0.25), ("miner", 0.25), ("flag", 0.5)];
    red.assert_distributions(
        "opponent",
        &[("e7", &[("general", 1.0)]), ("a7", &[("scout", 0.5), ("miner", 0.5)]), ("j10", unmoved), ("i9", unmoved)],
    );
    let flag_or_bomb: &[(&str, f32)] = &[("bomb", 0.5), ("flag", 0.5)];
    red.assert_distributions(
        "own_seen_by_opponent",
        &[("e4", &[("marshal", 1.0)]), ("c2", &[("spy", 1.0)]), ("a1", flag_or_bomb), ("b1", flag_or_bomb)],
    );
    red.assert_ones("own_hidden", &["a1", "b1", "c2"]);
    red.assert_ones("opponent_hidden", &["j10", "i9", "a7"]);
    red.assert_ones("own_moved", &["c2"]);
    red.assert_ones("opponent_moved", &["a7"]);
    assert_eq!(plane_index(Layout::Full, "opponent_spy"), 12);
    assert_eq!(plane_index(Layout::Full, "own_seen_by_opponent_spy"), 24);
    assert_eq!(plane_index(Layout::Full, "empty"), 38);

    let red = Obs::of(&game(&pieces, "red", &["c2-c3", "i9-i8"]), Layout::Full);
    let half: &[(&str, f32)] = &[("scout", 0.5), ("miner", 0.5)];
    red.assert_distributions(
        "opponent",
        &[("e7", &[("general", 1.0)]), ("a7", half), ("i8", half), ("j10", &[("flag", 1.0)])],
    );
    red.assert_distributions(
        "own_seen_by_opponent",
        &[("e4", &[("marshal", 1.0)]), ("c3", &[("spy", 1.0)]), ("a1", flag_or_bomb), ("b1", flag_or_bomb)],
    );
    red.assert_ones("opponent_moved", &["a7", "i8"]);
}

// ---- 3. Frames -------------------------------------------------------------

/// The square rotated by 180 degrees.
fn mirror_square(name: &str) -> String {
    sq(name).rotated().to_string()
}

/// The same scenario with the colours swapped and the board rotated, written
/// by hand: every square rotated, every letter's case swapped.
fn mirrored(pieces: &[(&str, &str)], side: &str, moves: &[&str]) -> State {
    let squares: Vec<String> = pieces.iter().map(|(s, _)| mirror_square(s)).collect();
    let tokens: Vec<String> = pieces
        .iter()
        .map(|(_, t)| {
            t.chars()
                .map(|c| if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c.to_ascii_uppercase() })
                .collect()
        })
        .collect();
    let mirrored_pieces: Vec<(&str, &str)> =
        squares.iter().map(|s| s.as_str()).zip(tokens.iter().map(|t| t.as_str())).collect();
    let mirrored_moves: Vec<String> = moves
        .iter()
        .map(|m| {
            let (from, to) = m.split_once('-').unwrap();
            format!("{}-{}", mirror_square(from), mirror_square(to))
        })
        .collect();
    let mirrored_moves: Vec<&str> = mirrored_moves.iter().map(|m| m.as_str()).collect();
    let other = if side == "red" { "blue" } else { "red" };
    game(&mirrored_pieces, other, &mirrored_moves)
}

/// A scenario with a threat, an evade, a protection, battles, a Scout run
/// and hidden pieces of both kinds.
const SCENARIO: [(&str, &str); 10] = [
    ("a1", "F"),
    ("e3", "L"),
    ("b2", "B"),
    ("j1", "O"),
    ("f3", "J"),
    ("j10", "f"),
    ("e6", "g"),
    ("d4", "j^"),
    ("a10", "o"),
    ("i9", "b"),
];
const SCENARIO_MOVES: [&str; 6] = ["e3-e4", "e6-e5", "e4-f4", "a10-a6", "f3-e3", "e5-e4"];

/// Blue playing the mirrored scenario sees, after every ply, exactly what Red
/// sees in the original (both layouts): the acting frame is the rotation.
#[test]
fn blue_sees_the_mirrored_scenario_exactly_as_red_sees_the_original() {
    for n in 0..=SCENARIO_MOVES.len() {
        let original = game(&SCENARIO, "red", &SCENARIO_MOVES[..n]);
        let mirror = mirrored(&SCENARIO, "red", &SCENARIO_MOVES[..n]);
        assert_eq!(mirror.serialize(), original.color_swapped().serialize(), "the hand mirror is the colour swap");
        assert_eq!(mirror.to_move(), original.to_move().opponent());
        for layout in Layout::ALL {
            let (a, b) = (observe(&original, layout), observe(&mirror, layout));
            if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
                panic!(
                    "{layout} after {n} plies differs at plane {} cell {}: {} vs {}",
                    layout.planes()[i / 100].name,
                    i % 100,
                    a[i],
                    b[i]
                );
            }
        }
    }
    // Spot check of the mirror after the threat e3-e4 / f8-f7: Blue's hidden
    // Lieutenant on f7 (absolute cell 65) is Blue's cell 34 (e4 in its frame).
    let mirror = mirrored(&SCENARIO, "red", &SCENARIO_MOVES[..2]);
    let blue = Obs::of(&mirror, Layout::Full);
    assert_eq!(blue.viewer, Color::Blue);
    blue.assert_ones("we_threatened_major", &["f7"]);
    assert_eq!(plane(&blue.values, Layout::Full, "we_threatened_major")[34], 1.0);
}

/// On one state, the planes that do not depend on the viewer's information
/// (empty squares, lakes, counters, last move, move history, starting
/// squares) are, for Blue, Red's planes rotated by 180 degrees; and each
/// side's own pieces are where the other sees them.
#[test]
fn blue_view_of_the_same_state_is_the_rotation_of_reds() {
    for n in 0..=SCENARIO_MOVES.len() {
        let state = game(&SCENARIO, "red", &SCENARIO_MOVES[..n]);
        for layout in Layout::ALL {
            let red = Obs::seen_by(&state, layout, Color::Red);
            let blue = Obs::seen_by(&state, layout, Color::Blue);
            assert_eq!(Obs::of(&state, layout).values, Obs::seen_by(&state, layout, state.to_move()).values);
            let mut rotated: Vec<(String, String)> = ["empty", "ply_fraction", "battleless_fraction"]
                .iter()
                .map(|&p| (p.to_string(), p.to_string()))
                .collect();
            match layout {
                Layout::Compact => {
                    for p in ["lake", "last_move_source", "last_move_destination"] {
                        rotated.push((p.to_string(), p.to_string()));
                    }
                }
                Layout::Full => {
                    for k in 1..=32 {
                        rotated.push((format!("move_t-{k}"), format!("move_t-{k}")));
                    }
                    rotated.push(("start_square_none".into(), "start_square_none".into()));
                    for c in 0..100 {
                        rotated.push((format!("start_square_{c}"), format!("start_square_{}", 99 - c)));
                    }
                }
            }
            for (r, b) in &rotated {
                let (rp, bp) = (red.plane(r), blue.plane(b));
                for c in 0..100 {
                    assert_eq!(rp[c], bp[99 - c], "{layout} {r}/{b} after {n} plies, Red cell {c}");
                }
            }
            // Red's own planes and Blue's view of revealed Red pieces agree
            // under the rotation (and the other way round).
            let opponent = if layout == Layout::Compact { "revealed_opponent" } else { "opponent" };
            for t in T12 {
                for (me, them, who) in [(&red, &blue, Color::Red), (&blue, &red, Color::Blue)] {
                    let own = me.plane(&format!("own_{t}"));
                    let seen = them.plane(&format!("{opponent}_{t}"));
                    for s in Square::all() {
                        let Some(p) = state.board()[s] else { continue };
                        if p.color == who && p.revealed {
                            let mine = s.in_frame(who).index();
                            let theirs = s.in_frame(who.opponent()).index();
                            assert_eq!(own[mine], seen[theirs], "{layout} {t} on {s} after {n} plies");
                        }
                    }
                }
            }
        }
    }
}
