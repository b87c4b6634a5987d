//! The page: one HTML file with the game's frames inside it as JSON, the
//! material chart drawn here as SVG, and a small script that steps through
//! the plies. Nothing is fetched: the file opens from a disk.

use serde::Serialize;
use stratego_engine::{PieceType, Square};

use crate::game::{board_codes, frames, material, start, Frame, Game, GameSource, Perspective};
use crate::ViewError;

const TEMPLATE: &str = include_str!("page.html");

/// The board's look (squares, lakes, pieces by side, a known piece's
/// outline, a moved piece's dot), shared by this page and the play page of
/// `stratego serve`, each of which puts it where its template says
/// `{{BOARD_CSS}}`.
pub const BOARD_CSS: &str = include_str!("board.css");

/// A network's view of one position, taken by the side to move there
/// (`stratego view --net`): one per ply, the position before it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Notes {
    /// `red` or `blue`: the side to move, whose information the network had.
    pub mover: &'static str,
    /// The value head's expected score for the mover, P(win) + P(draw) / 2.
    pub score: f32,
    /// The policy's likeliest moves, best first, with their probabilities.
    pub top: Vec<(String, f32)>,
    /// For each opponent piece the mover has not seen (by cell): the belief
    /// head's likeliest type (its letter) and that type's probability.
    pub belief: Vec<(usize, char, f32)>,
}

/// A type's label on a piece and its name, by letter: the page's one
/// source for them is the engine's table.
#[derive(Serialize)]
struct TypeLabel {
    label: &'static str,
    name: &'static str,
}

/// Where the chart's plot area lies, for the page's cursor.
#[derive(Serialize)]
struct ChartArea {
    left: f64,
    width: f64,
}

#[derive(Serialize)]
struct PageData<'a> {
    title: &'a str,
    result: Option<&'a str>,
    source: &'static str,
    rules: String,
    /// The view the page opens with (`all`, `red`, `blue`).
    view: &'static str,
    /// A one-side page's side: the only view it has the data for.
    only: Option<&'static str>,
    lakes: Vec<usize>,
    types: std::collections::BTreeMap<char, TypeLabel>,
    start: Vec<Option<String>>,
    material0: [f64; 2],
    frames: &'a [Frame],
    /// One per ply where given; `None` on the other side's plies of a
    /// one-side page.
    notes: Option<Vec<Option<&'a Notes>>>,
    chart: ChartArea,
}

const CHART_WIDTH: f64 = 440.0;
const CHART_HEIGHT: f64 = 110.0;
const CHART_LEFT: f64 = 36.0;

/// The material of both sides over the game, as an SVG line chart with a
/// cursor line (`#cursor`) the page moves to the ply shown.
fn material_chart(start: [f64; 2], frames: &[Frame]) -> String {
    let series: Vec<[f64; 2]> = std::iter::once(start).chain(frames.iter().map(|f| f.material)).collect();
    let top = series.iter().flat_map(|m| m.iter().copied()).fold(1.0, f64::max);
    let n = (series.len() - 1).max(1) as f64;
    let (plot_w, plot_h) = (CHART_WIDTH - CHART_LEFT - 4.0, CHART_HEIGHT - 18.0);
    let x = |i: usize| CHART_LEFT + i as f64 / n * plot_w;
    let y = |v: f64| 4.0 + (1.0 - v / top) * plot_h;
    let line = |side: usize| -> String {
        series.iter().enumerate().map(|(i, m)| format!("{:.1},{:.1}", x(i), y(m[side]))).collect::<Vec<_>>().join(" ")
    };
    format!(
        r##"<svg width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="material over the game">
<rect x="{l}" y="4" width="{pw}" height="{ph}" fill="#fff" stroke="#ccc"/>
<text x="2" y="12">{top:.0}</text><text x="2" y="{by}">0</text>
<text x="{l}" y="{ty}">ply 0</text><text x="{tr}" y="{ty}" text-anchor="end">ply {last}</text>
<polyline fill="none" stroke="#c0392b" stroke-width="1.5" points="{red}"/>
<polyline fill="none" stroke="#2c5fa8" stroke-width="1.5" points="{blue}"/>
<line id="cursor" x1="{l}" x2="{l}" y1="4" y2="{bottom}" stroke="#333" stroke-dasharray="3,2"/>
</svg>"##,
        w = CHART_WIDTH,
        h = CHART_HEIGHT,
        l = CHART_LEFT,
        pw = plot_w,
        ph = plot_h,
        by = 4.0 + plot_h,
        ty = CHART_HEIGHT - 2.0,
        tr = CHART_LEFT + plot_w,
        last = series.len() - 1,
        bottom = 4.0 + plot_h,
        red = line(0),
        blue = line(1),
    )
}

/// Text that goes into the page's HTML as it is.
fn escape_html(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The page of `game` as `perspective` saw it (a one-side page holds no
/// type that side had not seen), with the network's `notes` (one per ply)
/// where given.
pub fn render(
    game: &Game,
    title: &str,
    perspective: Perspective,
    notes: Option<&[Notes]>,
) -> Result<String, ViewError> {
    if let Some(side) = game.own_side.filter(|&side| perspective != Perspective::Side(side)) {
        return Err(ViewError::Perspective(format!(
            "the file holds only {side}'s side of the game (the opponent's setup is a guess): view it as {side}"
        )));
    }
    if let Some(notes) = notes.filter(|n| n.len() != game.moves.len()) {
        return Err(ViewError::Notes(format!(
            "{} notes for a game of {} plies (one per ply)",
            notes.len(),
            game.moves.len()
        )));
    }
    let frames = frames(game, perspective, |_| {})?;
    let first = start(game)?;
    let (start, material0) = (board_codes(&first, perspective), material(&first));
    let only = match perspective {
        Perspective::All => None,
        Perspective::Side(_) => Some(perspective.name()),
    };
    // A side's page keeps the network's notes on that side's moves only:
    // the others would tell where the other side meant to go.
    let notes =
        notes.map(|notes| notes.iter().map(|n| (only.is_none() || only == Some(n.mover)).then_some(n)).collect());
    let data = PageData {
        title,
        result: game.result.as_deref(),
        source: match game.source {
            GameSource::LabRecord => "lab record",
            GameSource::RefereeLog => "UCC referee log",
            GameSource::BotLog => "ucc-bot log",
        },
        rules: game.rules.to_string(),
        view: perspective.name(),
        only,
        lakes: stratego_engine::square::LAKES.iter().map(|sq: &Square| sq.index()).collect(),
        types: PieceType::ALL
            .iter()
            .map(|t| (t.letter(), TypeLabel { label: t.rank_label(), name: t.name() }))
            .collect(),
        start,
        material0,
        frames: &frames,
        notes,
        chart: ChartArea { left: CHART_LEFT, width: CHART_WIDTH - CHART_LEFT - 4.0 },
    };
    // `</` may not appear inside a script element: JSON allows `\u003c`.
    let json = serde_json::to_string(&data).map_err(|e| ViewError::Notes(e.to_string()))?.replace('<', "\\u003c");
    Ok(TEMPLATE
        .replace("{{BOARD_CSS}}", BOARD_CSS)
        .replace("{{TITLE}}", &escape_html(title))
        .replace("{{CHART}}", &material_chart(material0, &frames))
        .replace("{{DATA}}", &json))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{read_game, tests::random_record};

    #[test]
    fn the_page_holds_the_game_and_fetches_nothing() {
        let (text, end) = random_record(3, 80);
        let game = read_game(&text, stratego_ucc::protocol::ucc_rules()).unwrap();
        let html = render(&game, "a <test> game", Perspective::Side(stratego_engine::Color::Red), None).unwrap();
        assert!(html.starts_with("<!DOCTYPE html>"));
        assert!(html.contains("<title>a &lt;test&gt; game</title>"));
        for remote in ["http://", "https://", "src=\"", "<link"] {
            assert!(!html.contains(remote), "the page refers to {remote}");
        }
        // The data parses back, and holds every ply.
        let start = html.find("id=\"game\">").unwrap() + "id=\"game\">".len();
        let json = &html[start..start + html[start..].find("</script>").unwrap()];
        let data: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(data["frames"].as_array().unwrap().len(), end.ply() as usize);
        assert_eq!((&data["view"], &data["only"]), (&serde_json::json!("red"), &serde_json::json!("red")));
        assert_eq!(data["types"]["M"]["label"], "10");
        assert!(html.contains("<polyline"), "the material chart");
    }

    #[test]
    fn notes_must_fit_the_game_and_a_side_page_keeps_its_own() {
        let (text, _) = random_record(4, 20);
        let game = read_game(&text, stratego_ucc::protocol::ucc_rules()).unwrap();
        let one = Notes { mover: "red", score: 0.5, top: vec![], belief: vec![] };
        let e = render(&game, "t", Perspective::All, Some(std::slice::from_ref(&one))).unwrap_err();
        assert!(e.to_string().contains("one per ply"), "{e}");
        let notes: Vec<Notes> = (0..game.moves.len())
            .map(|i| Notes { mover: if i % 2 == 0 { "red" } else { "blue" }, ..one.clone() })
            .collect();
        let html = render(&game, "t", Perspective::All, Some(&notes)).unwrap();
        assert!(html.contains("\"mover\":\"red\"") && html.contains("\"mover\":\"blue\""));
        // Blue's page keeps the notes on Blue's moves only.
        let html = render(&game, "t", Perspective::Side(stratego_engine::Color::Blue), Some(&notes)).unwrap();
        assert!(!html.contains("\"mover\":\"red\"") && html.contains("\"mover\":\"blue\""));
    }
}
