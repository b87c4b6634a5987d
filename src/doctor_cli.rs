//! `stratego doctor`: what this program can run on this machine. The
//! backends built in, whether each finds its device, a small forward pass
//! and training step on each that does (speed and memory), and for each
//! that cannot, one line that says what is missing and what to do.

use std::io::Write;

use stratego_engine::Layout;
use stratego_model::device::backends_built;
use stratego_model::speed::measure_model;
use stratego_model::{device, ModelConfig};

use crate::{output, CliError};

/// What to do where a backend was not built into this program.
fn rebuild_advice(backend: &str) -> &'static str {
    match backend {
        "wgpu" => {
            "rebuild with `cargo build --release --features wgpu` (about 35 minutes more on 2 cores); on the box it \
             needs a Vulkan driver (mesa-vulkan-drivers, or the NVIDIA Vulkan ICD of the NVIDIA driver)"
        }
        "ndarray" => "rebuild with `--features ndarray` to compare it (flex, the default, is the faster CPU backend)",
        _ => "rebuild with `cargo build --release --features flex` (the default CPU backend)",
    }
}

/// What to do where a built backend finds no device.
fn device_advice(backend: &str) -> &'static str {
    match backend {
        "wgpu" => {
            "no Vulkan adapter: install a Vulkan driver (mesa-vulkan-drivers; on an NVIDIA box the NVIDIA Vulkan ICD), \
             or train with --device cpu"
        }
        _ => "the CPU backend failed to start: report it with this line",
    }
}

/// The GPUs the machine shows to programs, by their device files.
fn gpu_files() -> Vec<String> {
    let mut found = Vec::new();
    for dir in ["/dev", "/dev/dri"] {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let nvidia = dir == "/dev" && name.starts_with("nvidia") && name[6..].chars().all(|c| c.is_ascii_digit());
            if (nvidia && name.len() > 6) || (dir == "/dev/dri" && name.starts_with("renderD")) {
                found.push(format!("{dir}/{name}"));
            }
        }
    }
    found.sort();
    found
}

/// The processor's model name (`/proc/cpuinfo`), where known.
fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("model name"))?;
    Some(line.split_once(':')?.1.trim().to_string())
}

/// The process's peak resident memory in MiB (`VmHWM`), where known.
fn peak_resident_mib() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

pub fn doctor(out: &mut impl Write, batch: usize, iterations: usize) -> Result<(), CliError> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cpu = cpu_model().unwrap_or_else(|| "an unknown processor".into());
    writeln!(out, "machine: {cpu}, {cores} cores").map_err(output)?;
    match stratego_learner::config::memory_limit() {
        Some(limit) => writeln!(out, "memory: {} {:.1} GiB", limit.what, limit.bytes as f64 / (1u64 << 30) as f64),
        None => writeln!(out, "memory: no limit known"),
    }
    .map_err(output)?;
    let gpus = gpu_files();
    if gpus.is_empty() {
        writeln!(out, "GPU: none shown to programs (no /dev/nvidia*, no /dev/dri/renderD*): the CPU backends run here")
    } else {
        writeln!(out, "GPU: {}", gpus.join(", "))
    }
    .map_err(output)?;

    let config = ModelConfig::preset("tiny")?;
    let layout = Layout::Compact;
    let mut working = Vec::new();
    for (backend, built) in backends_built() {
        if !built {
            writeln!(out, "{backend}: not built into this program: {}", rebuild_advice(backend)).map_err(output)?;
            continue;
        }
        match device(backend) {
            Err(e) => writeln!(out, "{backend}: {e}; {}", device_advice(backend)).map_err(output)?,
            Ok(dev) => {
                let (forward, train) = measure_model(&config, layout, batch, iterations, &dev);
                let memory =
                    peak_resident_mib().map_or(String::new(), |m| format!("; peak resident memory {m:.0} MiB"));
                writeln!(
                    out,
                    "{backend}: ok: the tiny network ({layout}, batch {batch}): forward {forward:.0} samples/s, \
                     train step {train:.0} samples/s{memory}"
                )
                .map_err(output)?;
                working.push(backend);
            }
        }
    }
    writeln!(
        out,
        "cuda: no CUDA backend in this program yet; on an NVIDIA box, use wgpu with the NVIDIA Vulkan ICD installed"
    )
    .map_err(output)?;
    match working.first() {
        None => Err("no backend of this program runs here (see the lines above)".into()),
        Some(_) => {
            let gpu = working.iter().find(|b| **b == "wgpu");
            let advice = match gpu {
                Some(_) => "train with --device wgpu (or run.device = \"wgpu\")".to_string(),
                None => format!("train with --device cpu ({})", working[0]),
            };
            writeln!(out, "use: {advice}").map_err(output)
        }
    }
}
