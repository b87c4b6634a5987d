//! Any program that speaks the UCC 2012 protocol as a lab player
//! (`ucc:COMMAND`): the lab is its referee.
//!
//! For each game the player starts the program ([`Program`]), tells it its
//! colour and reads its setup (`Player::take_seat`: the program plays the
//! setup it sends, whatever the match dealt its seat), and at each of its
//! turns tells it what happened since its last move (the echo of its own
//! move, the opponent's move, both with their outcomes, or `START`) and the
//! ten board rows, then reads its move. As the referee does, it refuses a
//! reply that is late, unparsable or illegal under the referee's rules, a
//! program that exits or floods its output, and `SURRENDER`: the program
//! forfeits that game (`PlayerError::Forfeit`, with the reason), and the
//! match goes on. The program is stopped between its turns and its process
//! group is killed when the game ends (when the player is dropped).
//!
//! Its setup for the arena's setup draw (`choose_setup`) is asked of a
//! short-lived copy of the program as Red: in a `swap` match its opponent
//! plays that setup in the pair's other game.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use stratego_engine::{Color, Move, PieceSet, Ruleset, Setup};
use stratego_players::{
    AgentRng, Entry, InfoView, Naming, Player, PlayerError, PlayerFactory, PlayerSpec, Registry, RulesRefused,
    SpecError,
};

use crate::program::{Failure, Program};
use crate::protocol::{parse_reply, parse_setup_lines, ply_line, view_rows, Reply};

/// The referee's per-reply limit the lab uses unless told (`-T 10`, as
/// `shared/ucc/match.sh`; the referee's own default is 2 s): Python 2 bots
/// start slowly on a loaded machine.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

const OPTIONS: &str = "timeout=SECONDS (per reply, default 10)";

/// Where `ucc:NAME` looks for a bot named by a bare word that is not a
/// program on the PATH: the field's launchers, `$UCC_DIR/bots/NAME`
/// (`shared/ucc/setup.sh` writes them and `env.sh` sets `UCC_DIR`).
pub const FIELD_DIR_VARIABLE: &str = "UCC_DIR";

/// The registry entry of `ucc:COMMAND`.
pub fn entry() -> Entry {
    Entry {
        name: "ucc",
        path: Some("a UCC 2012 bot: a shell command line or launcher file, e.g. ucc:./my_bot or ucc:vixen"),
        options: OPTIONS,
        about: "an outside program that speaks the UCC 2012 protocol, refereed by the lab (plays its own setups, under the referee's rules)",
        build: Box::new(|spec, _| Ok(Arc::new(UccFactory::from_spec(spec)?) as Arc<dyn PlayerFactory>)),
    }
}

/// Adds `ucc:` to a registry.
pub fn register(registry: &mut Registry) {
    registry.register(entry());
}

/// Makes `ucc:` players: one program per game.
#[derive(Clone, Debug)]
pub struct UccFactory {
    /// As the spec wrote it (the player's name).
    command: String,
    /// What runs: the command with a field bot's name resolved to its launcher.
    resolved: String,
    timeout: Duration,
}

impl UccFactory {
    pub fn new(command: &str, timeout: Duration) -> Result<UccFactory, String> {
        let resolved = resolve(command)?;
        Ok(UccFactory { command: command.trim().to_string(), resolved, timeout })
    }

    fn from_spec(spec: &PlayerSpec) -> Result<UccFactory, SpecError> {
        spec.check_keys(OPTIONS)?;
        let command = spec.path.as_deref().unwrap_or_default();
        let timeout = spec.parse_option(
            "timeout",
            DEFAULT_TIMEOUT.as_secs_f64(),
            |t| *t > 0.0 && *t <= 3600.0,
            "seconds, more than 0 and at most 3600",
        )?;
        UccFactory::new(command, Duration::from_secs_f64(timeout))
            .map_err(|why| SpecError::Load { spec: spec.to_string(), why })
    }

    fn spec(&self, naming: Naming) -> PlayerSpec {
        PlayerSpec::named("ucc").with_path(&self.command).with_default(
            naming,
            "timeout",
            self.timeout.as_secs_f64(),
            DEFAULT_TIMEOUT.as_secs_f64(),
        )
    }

    /// The command that runs (a field bot's name resolved to its launcher).
    pub fn program_line(&self) -> &str {
        &self.resolved
    }
}

/// The command that runs for `command`: itself, unless its first word is a
/// bare name that is neither a program on the PATH nor a file here but a
/// launcher in the field's directory (`$UCC_DIR/bots`). A first word that
/// is a path must be an executable file; a bare one must be found.
fn resolve(command: &str) -> Result<String, String> {
    let command = command.trim();
    let mut words = command.splitn(2, char::is_whitespace);
    let first = words.next().unwrap_or_default();
    let rest = words.next().map(|r| format!(" {r}")).unwrap_or_default();
    if first.is_empty() {
        return Err("the command is empty".into());
    }
    if first.contains('/') {
        return executable(Path::new(first)).map(|()| command.to_string());
    }
    if on_path(first) {
        return Ok(command.to_string());
    }
    let field = std::env::var_os(FIELD_DIR_VARIABLE).map(|d| PathBuf::from(d).join("bots").join(first));
    match field {
        Some(launcher) if executable(&launcher).is_ok() => Ok(format!("{}{rest}", launcher.display())),
        Some(launcher) => Err(format!(
            "`{first}` is neither a program on the PATH nor a bot of the field ({} is not an executable file)",
            launcher.display()
        )),
        None => Err(format!(
            "`{first}` is not a program on the PATH, and ${FIELD_DIR_VARIABLE} is not set to find a field bot of that \
             name (build the field with shared/ucc/setup.sh DIR and set {FIELD_DIR_VARIABLE}=DIR)"
        )),
    }
}

fn executable(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.permissions().mode() & 0o111 != 0 => Ok(()),
        Ok(m) if m.is_file() => Err(format!("{} is not executable", path.display())),
        Ok(_) => Err(format!("{} is not a file", path.display())),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| executable(&dir.join(name)).is_ok()))
        .unwrap_or(false)
}

impl PlayerFactory for UccFactory {
    fn name(&self) -> String {
        self.spec(Naming::Canonical).to_string()
    }

    fn resolved_name(&self) -> String {
        self.spec(Naming::Resolved).to_string()
    }

    fn make(&self) -> Box<dyn Player> {
        Box::new(UccPlayer { factory: self.clone(), program: None, me: Color::Red, told: 0 })
    }

    /// The classic army, and no progress rule the bot cannot know: the
    /// referee has neither the two-square nor the more-squares rule, and a
    /// bot's move that only they forbid would lose it the game. Caps are
    /// fine (a draw).
    fn check_rules(&self, rules: &Ruleset) -> Result<(), RulesRefused> {
        if rules.piece_set != PieceSet::Classic {
            return Err(RulesRefused::Unplayable(format!(
                "a UCC bot plays the classic army only, and {} is another",
                rules.canonical()
            )));
        }
        if rules.two_square_limit != 0 || rules.chase_rule {
            return Err(RulesRefused::Unplayable(format!(
                "a UCC bot plays by the referee's rules, which have no two-square or more-squares rule, and {} has \
                 them; play it under `referee` rules",
                rules.canonical()
            )));
        }
        Ok(())
    }

    fn trained_rules(&self) -> Option<Ruleset> {
        Some(Ruleset::referee())
    }

    fn brings_own_setup(&self) -> bool {
        true
    }
}

/// One game of a `ucc:` program (see the module documentation).
pub struct UccPlayer {
    factory: UccFactory,
    /// The running program, from `take_seat` to the end of the game.
    program: Option<Program>,
    me: Color,
    /// Plies of the game already told to the program.
    told: usize,
}

fn forfeit(failure: Failure) -> PlayerError {
    PlayerError::Forfeit(failure.to_string())
}

impl UccPlayer {
    /// Starts the program as `me` and reads its setup.
    fn seat(&mut self, me: Color, opponent: &str) -> Result<(Program, Setup), PlayerError> {
        let mut program = Program::start(self.factory.program_line()).map_err(forfeit)?;
        // The referee sends names without spaces (it replaces them).
        let opponent: String = opponent.chars().map(|c| if c.is_whitespace() { '_' } else { c }).collect();
        program.send(&format!("{} {opponent} 10 10", me.name().to_uppercase())).map_err(forfeit)?;
        let mut lines = Vec::with_capacity(4);
        for _ in 0..4 {
            lines.push(program.reply(self.factory.timeout).map_err(forfeit)?);
        }
        let setup = parse_setup_lines(&lines, me).map_err(|why| PlayerError::Forfeit(format!("bad setup: {why}")))?;
        Ok((program, setup))
    }
}

impl Player for UccPlayer {
    fn name(&self) -> String {
        self.factory.name()
    }

    /// The setup the program sends as Red, asked of a copy that ends at
    /// once; a random one if it sends none (it will forfeit its game).
    fn choose_setup(&mut self, set: PieceSet, rng: &mut AgentRng) -> Setup {
        match self.seat(Color::Red, "lab") {
            Ok((program, setup)) if set == PieceSet::Classic => {
                program.finish("QUIT lab RED SURRENDER 0 0 0");
                setup
            }
            _ => Setup::random(set, rng),
        }
    }

    fn take_seat(&mut self, me: Color, opponent: &str, _set: PieceSet) -> Result<Option<Setup>, PlayerError> {
        let (program, setup) = self.seat(me, opponent)?;
        (self.program, self.me, self.told) = (Some(program), me, 0);
        Ok(Some(setup))
    }

    fn choose_move(&mut self, view: &InfoView<'_>, _rng: &mut AgentRng) -> Result<Move, PlayerError> {
        let Some(program) = self.program.as_mut().filter(|_| view.me == self.me) else {
            return Err(PlayerError::Failed(format!(
                "{} was asked to move without taking its seat as {}: an outside program plays only where the \
                 caller lets it choose its setup (Player::take_seat)",
                self.factory.name(),
                view.me
            )));
        };
        if view.history.is_empty() {
            program.send("START").map_err(forfeit)?;
        }
        for ply in view.history.get(self.told..).unwrap_or_default() {
            program.send(&ply_line(ply)).map_err(forfeit)?;
        }
        self.told = view.history.len();
        for row in view_rows(view) {
            program.send(&row).map_err(forfeit)?;
        }
        let line = program.reply(self.factory.timeout).map_err(forfeit)?;
        let shown = line.escape_debug();
        match parse_reply(&line) {
            Ok(Reply::Surrender) => Err(PlayerError::Forfeit("surrendered".into())),
            Ok(Reply::Move(mv)) if view.legal_moves.contains(&mv) => Ok(mv),
            Ok(Reply::Move(mv)) => Err(PlayerError::Forfeit(format!("sent the illegal move `{shown}` ({mv})"))),
            Err(why) => Err(PlayerError::Forfeit(format!("sent `{shown}`: {why}"))),
        }
    }
}
