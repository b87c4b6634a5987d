//! `stratego obs` (planes of a position, for debugging) and `stratego bench obs`.

use std::io::Write;

use stratego_engine::speed::{
    measure_observations, measure_sparse_observations, measure_vecenv, measure_vecenv_sparse,
};
use stratego_engine::{observe, Layout, State};

use crate::{output, read_position, CliError};

/// Prints the planes of `layout` for the side to move of a position (or
/// serialized state): every plane that is not all zero, or just plane
/// `only`. Grids are in the acting player's frame, its back row at the bottom.
pub fn print_planes(out: &mut impl Write, position: String, layout: &str, only: Option<usize>) -> Result<(), CliError> {
    let layout = Layout::from_name(layout)?;
    let state = State::deserialize(&read_position(position)?)?;
    let planes = layout.planes();
    if let Some(n) = only.filter(|&n| n >= planes.len()) {
        return Err(format!("plane {n} does not exist: the {layout} layout has planes 0-{}", planes.len() - 1).into());
    }
    let obs = observe(&state, layout);
    writeln!(out, "{layout} observation for {} (its frame: its back row at the bottom)", state.to_move())
        .map_err(output)?;
    for p in planes.iter().filter(|p| only.is_none_or(|n| n == p.index)) {
        let values = &obs[p.index * 100..(p.index + 1) * 100];
        if only.is_none() && values.iter().all(|&v| v == 0.0) {
            continue;
        }
        writeln!(out, "\nplane {} {}: {}", p.index, p.name, p.meaning).map_err(output)?;
        for row in (0..10).rev() {
            let cells: Vec<String> = values[row * 10..row * 10 + 10]
                .iter()
                .map(|&v| match v {
                    0.0 => "    .".to_string(),
                    1.0 => "    1".to_string(),
                    -1.0 => "   -1".to_string(),
                    v => format!("{v:>5.2}"),
                })
                .collect();
            writeln!(out, "{:>3} {}", row, cells.concat()).map_err(output)?;
        }
    }
    Ok(())
}

/// Observation and batched-environment speeds, one figure per line.
pub fn bench_obs(
    out: &mut impl Write,
    observations: usize,
    batch: usize,
    steps: usize,
    seed: u64,
) -> Result<(), CliError> {
    for layout in Layout::ALL {
        let (rate, bytes) = measure_observations(layout, observations, seed);
        writeln!(out, "obs {layout} observation: {rate:.0} observations/s per core").map_err(output)?;
        writeln!(out, "obs {layout} observation bandwidth: {:.2} GB/s per core", rate * bytes as f64 / 1e9)
            .map_err(output)?;
        let (rate, listed) = measure_sparse_observations(layout, observations, seed);
        writeln!(out, "obs {layout} sparse observation: {rate:.0} observations/s per core").map_err(output)?;
        writeln!(out, "obs {layout} sparse observation size: {listed:.0} values listed (of {})", layout.size())
            .map_err(output)?;
    }
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().map_err(|e| e.to_string())?;
    let threads = rayon::current_num_threads();
    for layout in Layout::ALL {
        let single = one_thread.install(|| measure_vecenv(layout, batch, steps, seed));
        writeln!(out, "obs vecenv step+observe {layout} B={batch}: {single:.0} game steps/s per core")
            .map_err(output)?;
        let all = measure_vecenv(layout, batch, steps, seed);
        writeln!(out, "obs vecenv step+observe {layout} B={batch} ({threads} threads): {all:.0} game steps/s")
            .map_err(output)?;
        let sparse = one_thread.install(|| measure_vecenv_sparse(layout, batch, steps, seed));
        writeln!(out, "obs vecenv step+observe {layout} sparse B={batch}: {sparse:.0} game steps/s per core")
            .map_err(output)?;
    }
    Ok(())
}
