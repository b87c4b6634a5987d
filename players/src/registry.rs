//! The player registry: a spec name to the constructor of its players.
//!
//! Each player crate registers its own entries (`stratego_baselines::register`,
//! `stratego_netplayer::register`), so this crate never names a concrete
//! player and adding one is one entry in its own crate: the registry
//! dispatches on the name, checks the path, and writes the list of players
//! into every "unknown player" message and the command line's help.

use std::fmt;
use std::sync::Arc;

use crate::player::PlayerFactory;
use crate::spec::{PlayerSpec, SpecError};

/// Turns a parsed spec of one player name into a factory. It reads the
/// options (rejecting unknown ones) and any file the spec names.
pub type Build = Box<dyn Fn(&PlayerSpec, &Registry) -> Result<Arc<dyn PlayerFactory>, SpecError> + Send + Sync>;

/// One kind of player.
pub struct Entry {
    /// The spec name, e.g. `expectimax`.
    pub name: &'static str,
    /// What the path after `name:` is, e.g. `a checkpoint path, e.g.
    /// net:runs/x/ckpt.safetensors`; `None` for players without a file.
    pub path: Option<&'static str>,
    /// The options, as help shows them: `depth=N (1-20), nodes=N`.
    pub options: &'static str,
    /// One line for the help text.
    pub about: &'static str,
    pub build: Build,
}

impl Entry {
    /// The spec's shape for lists: `expectimax[:depth=N,...]`, `net:PATH`.
    pub fn usage(&self) -> String {
        match (self.path.is_some(), self.options.is_empty()) {
            (true, _) => format!("{}:PATH", self.name),
            (false, true) => self.name.to_string(),
            (false, false) => format!("{}[:OPTIONS]", self.name),
        }
    }
}

/// The players a program knows.
#[derive(Default)]
pub struct Registry {
    entries: Vec<Entry>,
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.entries.iter().map(|e| e.name)).finish()
    }
}

impl Registry {
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Adds a kind of player. Two entries of one name are a programming
    /// error (a crate registered twice), not bad input.
    pub fn register(&mut self, entry: Entry) {
        assert!(self.entry(entry.name).is_none(), "player `{}` is registered twice", entry.name);
        self.entries.push(entry);
    }

    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.name == name)
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// `random, greedy, expectimax[:OPTIONS] or net:PATH`.
    pub fn known(&self) -> String {
        let usages: Vec<String> = self.entries.iter().map(Entry::usage).collect();
        match usages.split_last() {
            None => "no player (none is registered)".to_string(),
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        }
    }

    /// A help block: one line per player with its options.
    pub fn help(&self) -> String {
        let mut text = String::new();
        for e in &self.entries {
            text.push_str(&format!("  {:<22} {}", e.usage(), e.about));
            if !e.options.is_empty() {
                text.push_str(&format!(" (options: {})", e.options));
            }
            text.push('\n');
        }
        text
    }

    /// Parses a spec and checks its name and path against the entries.
    pub fn parse(&self, text: &str) -> Result<PlayerSpec, SpecError> {
        if text.trim().is_empty() {
            return Err(SpecError::Empty { known: self.known() });
        }
        let spec: PlayerSpec = text.parse()?;
        self.check(&spec)?;
        Ok(spec)
    }

    fn check(&self, spec: &PlayerSpec) -> Result<&Entry, SpecError> {
        let entry = self
            .entry(&spec.name)
            .ok_or_else(|| SpecError::UnknownPlayer { name: spec.name.clone(), known: self.known() })?;
        match (entry.path, &spec.path) {
            (Some(what), None) => Err(SpecError::MissingPath { player: spec.name.clone(), what: what.to_string() }),
            // A bare word where an option was expected (`expectimax:depth`).
            (None, Some(item)) => Err(SpecError::Malformed { spec: spec.to_string(), option: item.clone() }),
            _ => Ok(entry),
        }
    }

    /// The factory of a parsed spec.
    pub fn build(&self, spec: &PlayerSpec) -> Result<Arc<dyn PlayerFactory>, SpecError> {
        let entry = self.check(spec)?;
        (entry.build)(spec, self)
    }

    /// Parses and builds a spec in one step.
    pub fn factory(&self, text: &str) -> Result<Arc<dyn PlayerFactory>, SpecError> {
        self.build(&self.parse(text)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::{AgentRng, Player, PlayerError};
    use crate::view::InfoView;
    use stratego_engine::Move;

    struct Idle(String);
    impl Player for Idle {
        fn name(&self) -> String {
            self.0.clone()
        }
        fn choose_move(&mut self, view: &InfoView<'_>, _: &mut AgentRng) -> Result<Move, PlayerError> {
            Ok(view.legal_moves[0])
        }
    }

    fn registry() -> Registry {
        let mut r = Registry::new();
        r.register(Entry {
            name: "idle",
            path: None,
            options: crate::setup_policy::SETUP_OPTION,
            about: "plays the first legal move",
            build: Box::new(|spec, _| {
                spec.check_keys(crate::setup_policy::SETUP_OPTION)?;
                let name = spec.to_string();
                Ok(Arc::new(crate::FnFactory::new(name.clone(), move || Box::new(Idle(name.clone())))))
            }),
        });
        r.register(Entry {
            name: "file",
            path: Some("a file path, e.g. file:x.bin"),
            options: "",
            about: "reads a file",
            build: Box::new(|spec, _| Err(SpecError::Load { spec: spec.to_string(), why: "no such file".into() })),
        });
        r
    }

    #[test]
    fn names_dispatch_to_their_entry() {
        let r = registry();
        assert_eq!(r.factory("idle").unwrap().name(), "idle");
        assert_eq!(r.factory("idle:setup=handcrafted").unwrap().make().name(), "idle:setup=handcrafted");
        assert_eq!(r.known(), "idle[:OPTIONS] or file:PATH");
        assert!(r.help().contains("reads a file"));
    }

    #[test]
    fn bad_specs_name_what_is_wrong() {
        let r = registry();
        let err = |t: &str| r.factory(t).err().unwrap();
        assert_eq!(err(""), SpecError::Empty { known: r.known() });
        assert!(err("alphazero")
            .to_string()
            .contains("unknown player `alphazero`; expected idle[:OPTIONS] or file:PATH"));
        assert_eq!(
            err("file"),
            SpecError::MissingPath { player: "file".into(), what: "a file path, e.g. file:x.bin".into() }
        );
        assert_eq!(err("file:"), SpecError::NothingAfterColon { spec: "file:".into() });
        assert!(err("file").to_string().contains("`file:` needs a file path"));
        assert!(matches!(err("idle:depth"), SpecError::Malformed { option, .. } if option == "depth"));
        assert!(matches!(err("idle:depth=3"), SpecError::UnknownOption { key, .. } if key == "depth"));
        assert!(err("file:x.bin").to_string().contains("cannot load player `file:x.bin`: no such file"));
    }

    #[test]
    #[should_panic(expected = "registered twice")]
    fn a_name_is_registered_once() {
        let mut r = registry();
        r.register(Entry { name: "idle", path: None, options: "", about: "", build: Box::new(|_, _| unreachable!()) });
    }
}
