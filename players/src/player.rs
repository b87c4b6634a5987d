//! The one interface every player implements, and the factory the arena
//! uses to make a fresh player for every game.
//!
//! The trait lives in a crate that depends on the engine only, so that every
//! player crate (the baselines, the network player) implements it and the
//! evaluation crate plays them all without knowing any: each player crate
//! registers its factories in the [`Registry`](crate::registry::Registry).

use std::time::Duration;

use rand_xoshiro::Xoshiro256PlusPlus;
use stratego_engine::{Color, Move, PieceSet, ProgressRules, Ruleset, Setup};

use crate::view::InfoView;

/// The generator every player draws from. A concrete type (not a generic)
/// keeps the trait object-safe, and the arena seeds one per game and side so
/// that results do not depend on the order games run in.
pub type AgentRng = Xoshiro256PlusPlus;

/// A Stratego player. It sees only the acting player's information (the
/// view), never the hidden truth, and may keep state between the moves of
/// one game.
pub trait Player: Send {
    /// The spec that makes this player, e.g. `expectimax:depth=3`.
    fn name(&self) -> String;

    /// The starting army, in the owner's frame: uniformly random unless the
    /// player has a setup policy of its own (every registered player does,
    /// its `setup=` option).
    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        Setup::random(set, rng)
    }

    /// One of `view.legal_moves` (the view always has at least one). A
    /// player that cannot decide (a network whose output is not a
    /// distribution, a view it cannot rebuild) says why instead of
    /// panicking; the arena reports it with the game and the ply.
    fn choose_move(&mut self, view: &InfoView<'_>, rng: &mut AgentRng) -> Result<Move, PlayerError>;

    /// Called once on the player that will play a game, before its first
    /// move, with its colour and its opponent's name. A player that decides
    /// its setup only when it knows its seat, and then must play that setup,
    /// returns it: an outside program speaking the UCC protocol tells the
    /// referee its setup and keeps its own board, so the match cannot deal
    /// it another. The setup replaces the one dealt to its seat. Every other
    /// player keeps the default: `None`, play what was dealt.
    fn take_seat(&mut self, _me: Color, _opponent: &str, _set: PieceSet) -> Result<Option<Setup>, PlayerError> {
        Ok(None)
    }

    /// An upper bound on the wall-clock time of one decision, for callers
    /// that play against a clock (the UCC referee). Players whose decisions
    /// are fast ignore it. It makes a searching player's choices depend on
    /// the machine's speed, so the arena never sets it.
    fn limit_move_time(&mut self, _limit: Duration) {}
}

/// Why a player could not choose a move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerError {
    /// The player's own machinery failed (a network's inference, its
    /// output, a rebuilt state); the text says what. A bug or a broken
    /// file: the caller stops, since every later game would fail alike.
    #[error("{0}")]
    Failed(String),
    /// The player gives the game up: it resigned, or it is an outside
    /// program that failed to play it (a timeout, a crash, an illegal or
    /// unreadable reply, a flood of output). The game is lost, the reason
    /// is recorded, and a match goes on with its next game.
    #[error("forfeits: {0}")]
    Forfeit(String),
}

/// Makes fresh players of one kind: the arena asks for a new one per game,
/// so games share no state and can run on any thread in any order.
pub trait PlayerFactory: Send + Sync {
    /// The spec of the players it makes, canonical: defaults left out.
    fn name(&self) -> String;

    /// The same spec with every option named, defaults included
    /// ([`Naming::Resolved`](crate::Naming)): what a registration logs, so
    /// that a later change of a default cannot make its spec name another
    /// player unnoticed.
    fn resolved_name(&self) -> String;

    fn make(&self) -> Box<dyn Player>;

    /// Whether its players can play under `rules`; `Err` says why not. A
    /// network knows only the ruleset it was trained for, so its factory
    /// refuses the others; the arena asks before the first game.
    fn check_rules(&self, _rules: &Ruleset) -> Result<(), RulesRefused> {
        Ok(())
    }

    /// Whether its players bring their own setup to every game
    /// (`Player::take_seat` returns one): an outside program. A caller that
    /// deals setups itself (OpenSpiel's chance nodes, self-play's games)
    /// cannot seat them and refuses them up front.
    fn brings_own_setup(&self) -> bool {
        false
    }

    /// The ruleset its players were trained under, for those that have one
    /// (a network, n-tuple tables): a match whose command names no rules
    /// plays theirs.
    fn trained_rules(&self) -> Option<Ruleset> {
        None
    }
}

/// Players made by a closure, under a name (`FnFactory::new("first", ||
/// Box::new(First))`): players that know no ruleset of their own, or, with
/// [`trained_for`](FnFactory::trained_for), players that carry one (an
/// expectimax whose leaf is n-tuple tables).
pub struct FnFactory<F> {
    name: String,
    resolved: String,
    make: F,
    /// What was trained (`"its leaf tables were"`) and under which rules.
    trained: Option<(&'static str, Ruleset)>,
}

impl<F: Fn() -> Box<dyn Player> + Send + Sync> FnFactory<F> {
    /// Players of no options, or named with all of them: the resolved name
    /// is the name.
    pub fn new(name: impl Into<String>, make: F) -> FnFactory<F> {
        let name = name.into();
        FnFactory { resolved: name.clone(), name, make, trained: None }
    }

    /// The same players, with the resolved name of their spec.
    pub fn resolved(self, resolved: impl Into<String>) -> FnFactory<F> {
        FnFactory { resolved: resolved.into(), ..self }
    }

    /// The same players, which carry something trained under `rules`
    /// (`what` says what, as [`RulesRefused::OtherPieceSet`] prints it):
    /// they play only that piece set, and a match that names no rules plays
    /// `rules`.
    pub fn trained_for(self, what: &'static str, rules: Ruleset) -> FnFactory<F> {
        FnFactory { trained: Some((what, rules)), ..self }
    }
}

impl<F: Fn() -> Box<dyn Player> + Send + Sync> PlayerFactory for FnFactory<F> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn resolved_name(&self) -> String {
        self.resolved.clone()
    }

    fn make(&self) -> Box<dyn Player> {
        (self.make)()
    }

    fn check_rules(&self, rules: &Ruleset) -> Result<(), RulesRefused> {
        self.trained.map_or(Ok(()), |(what, own)| same_rules(what, &own, rules))
    }

    fn trained_rules(&self) -> Option<Ruleset> {
        self.trained.map(|(_, rules)| rules)
    }
}

/// Why a player cannot play under a match's rules
/// ([`PlayerFactory::check_rules`]). A caller may act on the kind: a player
/// trained for another piece set plays under the rules it was trained for
/// ([`PlayerFactory::trained_rules`]); an outside program that cannot play
/// the rules at all cannot be helped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RulesRefused {
    /// Trained for another piece set (`what` says what was trained: "its
    /// network was", "its tables were").
    #[error(
        "{what} trained for {} (id {}), but the match plays {} (id {}), another piece set; give the match the \
         player's rules, or a player trained for the match's",
        trained.canonical(),
        trained.id(),
        match_rules.canonical(),
        match_rules.id()
    )]
    OtherPieceSet { what: &'static str, trained: Ruleset, match_rules: Ruleset },
    /// The player's program cannot play these rules (a UCC bot knows the
    /// classic army and the referee's rules only); the text says why.
    #[error("{0}")]
    Unplayable(String),
}

/// `check_rules` of a player trained under `own`: refused unless the match
/// plays `own`'s piece set. Rulesets that differ only in the progress rules
/// and the caps are accepted: the player then holds itself to `own`'s
/// progress rules (`self_restriction`), and the command says so
/// (`rules_note`). The message says which ruleset is whose.
pub fn same_rules(what: &'static str, own: &Ruleset, match_rules: &Ruleset) -> Result<(), RulesRefused> {
    if own.piece_set == match_rules.piece_set {
        return Ok(());
    }
    Err(RulesRefused::OtherPieceSet { what, trained: *own, match_rules: *match_rules })
}

/// The progress rules a player holds itself to: those it was trained
/// under, or else the lab's (two-square limit 3, more-squares rule on).
pub fn own_progress_rules(factory: &dyn PlayerFactory) -> ProgressRules {
    factory.trained_rules().map_or(ProgressRules::LAB, |r| ProgressRules::of(&r))
}

/// The progress rules a player keeps to for its own moves in a match under
/// `match_rules`: its own (`own_progress_rules`) where they forbid something
/// the match's allow, else none (the match's rules decide alone). The
/// opponent's moves are never restricted: whatever the match allows, it may
/// play.
pub fn self_restriction(factory: &dyn PlayerFactory, match_rules: &Ruleset) -> Option<ProgressRules> {
    let own = own_progress_rules(factory);
    own.stricter_than(match_rules).then_some(own)
}

/// The one line a command prints about a player under `match_rules`: that it
/// plays under rules other than those it was trained for, or that it holds
/// itself to `restriction` (the progress rules in effect for it, if any).
/// `None` when neither holds.
pub fn rules_note(
    factory: &dyn PlayerFactory,
    match_rules: &Ruleset,
    restriction: Option<ProgressRules>,
) -> Option<String> {
    let trained = factory.trained_rules().filter(|r| r != match_rules);
    match (trained, restriction) {
        (None, None) => None,
        (Some(own), None) => Some(format!(
            "{} was trained for {} (id {}) and plays under {} (id {})",
            factory.name(),
            own.canonical(),
            own.id(),
            match_rules.canonical(),
            match_rules.id()
        )),
        (trained, Some(progress)) => Some(format!(
            "{}{} holds itself to the progress rules {progress}, which {} (id {}) lacks; its opponent moves by the match's rules",
            factory.name(),
            trained.map(|own| format!(" (trained for {})", own.id())).unwrap_or_default(),
            match_rules.canonical(),
            match_rules.id()
        )),
    }
}
