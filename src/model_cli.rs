//! `stratego model ...` (presets, new checkpoints, checkpoint info) and
//! `stratego bench model`.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use stratego_engine::{Layout, Ruleset};
use stratego_model::speed::measure_model;
use stratego_model::{device, read_meta, save, CheckpointMeta, ModelConfig, StrategoNet, PRESETS};

use crate::{output, CliError};

#[derive(Subcommand)]
pub enum ModelCommand {
    /// Print each preset's sizes and parameter count for both layouts.
    Presets,
    /// Write a freshly initialised checkpoint.
    Init {
        #[arg(long, default_value = "tiny")]
        preset: String,
        #[arg(long, default_value = "compact")]
        layout: String,
        #[arg(long)]
        out: PathBuf,
        /// cpu, flex, ndarray or wgpu.
        #[arg(long, default_value = "cpu")]
        device: String,
        /// The ruleset's canonical text (default: the classic rules); e.g. the UCC
        /// referee's rules for a `ucc-bot --agent net:PATH` checkpoint.
        #[arg(long)]
        rules: Option<String>,
    },
    /// Print a checkpoint's metadata.
    Info { checkpoint: PathBuf },
}

pub fn run(command: ModelCommand, out: &mut impl Write) -> Result<(), CliError> {
    match command {
        ModelCommand::Presets => {
            for name in PRESETS {
                let c = ModelConfig::preset(name)?;
                for layout in Layout::ALL {
                    writeln!(
                        out,
                        "{name:<9} {layout:<8} d_model {:>3}, layers {}, heads {}, ffn {:>4}: {} parameters",
                        c.d_model,
                        c.layers,
                        c.heads,
                        c.ffn,
                        c.parameter_count(layout.channels())
                    )
                    .map_err(output)?;
                }
            }
            Ok(())
        }
        ModelCommand::Init { preset, layout, out: path, device: name, rules } => {
            if path.exists() {
                return Err(format!("{} already exists; not overwriting it", path.display()).into());
            }
            let config = ModelConfig::preset(&preset)?;
            let layout = Layout::from_name(&layout)?;
            let rules: Ruleset = match rules {
                Some(text) => text.parse()?,
                None => Ruleset::classic(),
            };
            rules.validate()?;
            let net = StrategoNet::new(&config, layout, &device(&name)?);
            save(&net, &CheckpointMeta { config, layout, rules, step: 0 }, &path)?;
            writeln!(out, "wrote {}", path.display()).map_err(output)
        }
        ModelCommand::Info { checkpoint } => {
            let meta = read_meta(&checkpoint)?;
            writeln!(out, "model {}", serde_json_like(&meta.config)).map_err(output)?;
            writeln!(
                out,
                "layout {} ({} planes, identity {})",
                meta.layout,
                meta.layout.channels(),
                meta.layout.identity()
            )
            .map_err(output)?;
            writeln!(out, "rules {} (id {})", meta.rules, meta.rules.id()).map_err(output)?;
            writeln!(out, "step {}", meta.step).map_err(output)?;
            writeln!(out, "parameters {}", meta.config.parameter_count(meta.layout.channels())).map_err(output)
        }
    }
}

fn serde_json_like(c: &ModelConfig) -> String {
    format!("d_model {}, layers {}, heads {}, ffn {}, dropout {}", c.d_model, c.layers, c.heads, c.ffn, c.dropout)
}

/// Forward and training-step throughput of each preset on one device.
pub fn bench(
    out: &mut impl Write,
    device_name: &str,
    batch: usize,
    iterations: usize,
    presets: &[String],
) -> Result<(), CliError> {
    // Every name is checked before the first (possibly long) measurement.
    let configs = presets.iter().map(|p| ModelConfig::preset(p)).collect::<Result<Vec<_>, _>>()?;
    let dev = device(device_name)?;
    for (preset, config) in presets.iter().zip(configs) {
        let layout = Layout::Compact;
        let (forward, train) = measure_model(&config, layout, batch, iterations, &dev);
        writeln!(out, "model {preset} {layout} forward ({device_name}, batch {batch}): {forward:.1} samples/s")
            .map_err(output)?;
        writeln!(out, "model {preset} {layout} train step ({device_name}, batch {batch}): {train:.1} samples/s")
            .map_err(output)?;
    }
    Ok(())
}
