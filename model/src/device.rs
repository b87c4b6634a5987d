//! Choosing where the network runs. The program always names the device
//! (`cpu`, `flex`, `ndarray`, `wgpu`); nothing uses `Device::default()`,
//! which silently changes with the enabled cargo features.

use burn::tensor::Device;

use crate::error::ModelError;

/// The device names `--device` accepts.
pub const DEVICE_NAMES: [&str; 4] = ["cpu", "flex", "ndarray", "wgpu"];

/// The device called `name`, or a clear error if its backend was not built
/// or (wgpu) no adapter is available. `cpu` is the default CPU backend:
/// flex, which BENCHMARKS.md shows faster, else ndarray.
pub fn device(name: &str) -> Result<Device, ModelError> {
    match name {
        "cpu" => cpu(),
        "flex" => flex(),
        "ndarray" => ndarray(),
        "wgpu" => wgpu(),
        other => {
            Err(ModelError::Device(format!("unknown device `{other}` (expected one of {})", DEVICE_NAMES.join(", "))))
        }
    }
}

/// The backends a device name can reach, each with whether it was compiled
/// into this program (`cpu` names the first CPU backend built).
pub fn backends_built() -> [(&'static str, bool); 3] {
    [("flex", cfg!(feature = "flex")), ("ndarray", cfg!(feature = "ndarray")), ("wgpu", cfg!(feature = "wgpu"))]
}

fn not_built(feature: &str) -> ModelError {
    ModelError::Device(format!(
        "the {feature} backend was not built into this program; rebuild with `--features {feature}`"
    ))
}

fn cpu() -> Result<Device, ModelError> {
    flex().or_else(|_| ndarray()).map_err(|_| {
        ModelError::Device("no CPU backend was built; rebuild with `--features flex` or `--features ndarray`".into())
    })
}

fn flex() -> Result<Device, ModelError> {
    #[cfg(feature = "flex")]
    return Ok(Device::flex());
    #[cfg(not(feature = "flex"))]
    Err(not_built("flex"))
}

fn ndarray() -> Result<Device, ModelError> {
    #[cfg(feature = "ndarray")]
    #[allow(deprecated)] // burn deprecates ndarray in favour of flex; the design still offers it
    return Ok(Device::ndarray());
    #[cfg(not(feature = "ndarray"))]
    Err(not_built("ndarray"))
}

fn wgpu() -> Result<Device, ModelError> {
    #[cfg(feature = "wgpu")]
    return wgpu_checked();
    #[cfg(not(feature = "wgpu"))]
    Err(not_built("wgpu"))
}

/// burn's wgpu runtime panics inside its own worker thread when it finds no
/// adapter, instead of returning an error. So the first use happens in a
/// probe thread: a tiny tensor is created and read back there, and a panic
/// or a silence longer than the limit becomes an error here. The limit is
/// generous because a software adapter (lavapipe) compiles shaders for
/// minutes on first use.
#[cfg(feature = "wgpu")]
fn wgpu_checked() -> Result<Device, ModelError> {
    use burn::tensor::{DeviceKind, Tensor};
    use std::sync::mpsc;
    use std::time::Duration;

    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let device = Device::wgpu(DeviceKind::DefaultDevice);
        let sum = Tensor::<1>::from_floats([1.0, 2.0], &device).sum().into_scalar::<f32>();
        let _ = sender.send(sum);
    });
    match receiver.recv_timeout(Duration::from_secs(600)) {
        Ok(sum) if sum == 3.0 => Ok(Device::wgpu(DeviceKind::DefaultDevice)),
        Ok(sum) => Err(ModelError::Device(format!("the wgpu adapter computed 1 + 2 = {sum}"))),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(ModelError::Device(
            "no wgpu adapter is available (burn's wgpu runtime failed to start; install a Vulkan driver such as mesa-vulkan-drivers)".into(),
        )),
        Err(mpsc::RecvTimeoutError::Timeout) => {
            Err(ModelError::Device("the wgpu adapter did not answer within 10 minutes".into()))
        }
    }
}
