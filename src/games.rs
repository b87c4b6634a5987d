//! The games the command line knows, by name. A game on the contract is one
//! crate; to reach the generic commands (`game-arena`) it is one more line
//! in `registry`: its name and its game object from its settings text.

use std::fmt::Display;
use std::str::FromStr;

use stratego_contract::api::Game;
use stratego_cotoan::CoToanGame;
use stratego_engine::StrategoGame;

use crate::CliError;

/// Something done with a game, whatever its type. Each game has its own
/// state type (`Game::State`), so the registry cannot hand out one type of
/// game: it hands the game to a visitor, generic over it.
pub trait GameVisitor {
    type Output;
    fn visit<G: Game>(self, game: G) -> Result<Self::Output, CliError>
    where
        G::State: 'static;
}

/// A registry entry's constructor: the game of a settings text (the game's
/// defaults without one), handed to a visitor.
type Open<V> = fn(Option<&str>, V) -> Result<<V as GameVisitor>::Output, CliError>;

/// The games, one line each: the name, and the game object from its
/// settings type's canonical text (CoToan's `Settings`, Stratego's
/// `Ruleset`, which also takes a ruleset's name).
fn registry<V: GameVisitor>() -> Vec<(&'static str, Open<V>)> {
    vec![
        ("cotoan", |params, visitor| visitor.visit(CoToanGame::new(settings(params)?)?)),
        ("stratego", |params, visitor| visitor.visit(StrategoGame::new(settings(params)?)?)),
    ]
}

/// A settings text read by its type's parser, or the type's defaults.
fn settings<T: FromStr + Default>(params: Option<&str>) -> Result<T, CliError>
where
    T::Err: Display,
{
    params.map_or(Ok(T::default()), |text| text.parse().map_err(|e| format!("--params: {e}").into()))
}

/// The registered games' names.
pub fn names() -> Vec<&'static str> {
    registry::<Names>().into_iter().map(|(name, _)| name).collect()
}

/// The help of a flag that names a game.
pub fn help() -> String {
    format!("The game: {}", names().join(", "))
}

/// Hands the game `name`, under the settings text `params`, to `visitor`.
pub fn with_game<V: GameVisitor>(name: &str, params: Option<&str>, visitor: V) -> Result<V::Output, CliError> {
    let games = registry::<V>();
    let Some((_, open)) = games.iter().find(|(n, _)| *n == name) else {
        return Err(format!("unknown game `{name}`: the games are {}", names().join(", ")).into());
    };
    open(params, visitor)
}

/// The visitor `names` lists the registry with; it visits nothing.
struct Names;

impl GameVisitor for Names {
    type Output = ();
    fn visit<G: Game>(self, _game: G) -> Result<(), CliError> {
        Ok(())
    }
}
