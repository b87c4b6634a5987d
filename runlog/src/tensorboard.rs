//! TensorBoard scalars and images, written with tfrecord's event writer.
//!
//! Each writer opens a new `events.out.tfevents.*` file in the run directory;
//! TensorBoard merges all files of a directory. A resumed run starts its file
//! with a `SessionLog START` event at the resume step, which tells
//! TensorBoard to drop the orphaned points the killed run logged after its
//! last checkpoint, so curves never show two values for one step.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tfrecord::protobuf::event::What;
use tfrecord::protobuf::session_log::SessionStatus;
use tfrecord::protobuf::summary::value::Value;
use tfrecord::protobuf::{summary, SessionLog, Summary};
use tfrecord::{Event, EventIter, EventWriter, EventWriterConfig, RecordReaderConfig};

use crate::RunLogError;

/// A scalar read back from an event file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scalar {
    pub tag: String,
    pub step: u64,
    pub value: f32,
}

/// Appends scalars to a fresh event file of a run directory.
pub struct TensorBoard {
    path: PathBuf,
    writer: EventWriter<BufWriter<File>>,
}

fn wall_time() -> f64 {
    SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

impl TensorBoard {
    /// A new event file in `dir`. `resumed_at` is the last step whose
    /// results a resumed run kept (its checkpoint's step; `None` for a fresh
    /// run): TensorBoard purges the points logged at later steps by the run
    /// that was killed.
    pub fn create(dir: &Path, resumed_at: Option<u64>) -> Result<TensorBoard, RunLogError> {
        std::fs::create_dir_all(dir).map_err(|e| RunLogError::io(dir, e))?;
        let micros = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map(|d| d.as_micros()).unwrap_or(0);
        // The pid keeps two writers started in the same microsecond apart.
        let path = dir.join(format!("events.out.tfevents.{micros}.stratego.{}", std::process::id()));
        let file = File::create_new(&path).map_err(|e| RunLogError::io(&path, e))?;
        let writer = EventWriter::from_writer(BufWriter::new(file), EventWriterConfig { auto_flush: false })
            .map_err(|e| events_error(&path, e))?;
        let mut board = TensorBoard { path, writer };
        board.event(0, What::FileVersion("brain.Event:2".into()))?;
        if let Some(step) = resumed_at {
            let log = SessionLog { status: SessionStatus::Start as i32, ..Default::default() };
            // TensorBoard purges every point at or after a START's step.
            board.event(step + 1, What::SessionLog(log))?;
        }
        board.flush()?;
        Ok(board)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn event(&mut self, step: u64, what: What) -> Result<(), RunLogError> {
        let event = Event { wall_time: wall_time(), step: step as i64, what: Some(what), ..Default::default() };
        self.writer.write_event(event).map_err(|e| events_error(&self.path, e))
    }

    /// One scalar. Non-finite values are written as they are: TensorBoard
    /// shows them, and hiding a NaN loss would hide the bug.
    pub fn scalar(&mut self, tag: &str, step: u64, value: f64) -> Result<(), RunLogError> {
        self.writer.write_scalar(tag, step as i64, value as f32).map_err(|e| events_error(&self.path, e))
    }

    /// Several scalars of one step, then a flush, so a kill loses at most the
    /// step being written.
    pub fn scalars(&mut self, step: u64, values: &[(&str, f64)]) -> Result<(), RunLogError> {
        for &(tag, value) in values {
            self.scalar(tag, step, value)?;
        }
        self.flush()
    }

    /// A PNG picture of `width` x `height` pixels under `tag` (TensorBoard's
    /// Images tab), flushed.
    pub fn image(&mut self, tag: &str, step: u64, png: &[u8], width: u32, height: u32) -> Result<(), RunLogError> {
        let image = summary::Image {
            height: height as i32,
            width: width as i32,
            // RGB.
            colorspace: 3,
            encoded_image_string: png.to_vec(),
        };
        let value = summary::Value { tag: tag.to_string(), value: Some(Value::Image(image)), ..Default::default() };
        self.event(step, What::Summary(Summary { value: vec![value] }))?;
        self.flush()
    }

    pub fn flush(&mut self) -> Result<(), RunLogError> {
        self.writer.flush().map_err(|e| events_error(&self.path, e))
    }
}

fn events_error(path: &Path, e: impl std::fmt::Display) -> RunLogError {
    RunLogError::Events { path: path.display().to_string(), message: e.to_string() }
}

/// Every summary value in the event files of `dir` with its step, file by
/// file in name (= time) order. A truncated last record (a writer killed
/// mid-write) ends its file without an error, as TensorBoard itself treats
/// it.
fn summary_values(dir: &Path) -> Result<Vec<(u64, summary::Value)>, RunLogError> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| RunLogError::io(dir, e))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("events.out.tfevents.")))
        .collect();
    files.sort();
    let mut values = Vec::new();
    for path in files {
        let events = EventIter::open(&path, RecordReaderConfig::default()).map_err(|e| events_error(&path, e))?;
        for event in events {
            let Ok(event) = event else { break };
            let Some(What::Summary(summary)) = event.what else { continue };
            values.extend(summary.value.into_iter().map(|v| (event.step as u64, v)));
        }
    }
    Ok(values)
}

/// Every scalar in the event files of `dir`, in the order written.
pub fn read_scalars(dir: &Path) -> Result<Vec<Scalar>, RunLogError> {
    Ok(summary_values(dir)?
        .into_iter()
        .filter_map(|(step, v)| match v.value {
            Some(Value::SimpleValue(value)) => Some(Scalar { tag: v.tag, step, value }),
            _ => None,
        })
        .collect())
}

/// Every image's tag, step and encoded bytes in the event files of `dir`,
/// in the order written.
pub fn read_images(dir: &Path) -> Result<Vec<(String, u64, Vec<u8>)>, RunLogError> {
    Ok(summary_values(dir)?
        .into_iter()
        .filter_map(|(step, v)| match v.value {
            Some(Value::Image(image)) => Some((v.tag, step, image.encoded_image_string)),
            _ => None,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_read_back_with_their_tags_and_steps() {
        let dir = stratego_testkit::scratch_path("runlog-tb");
        {
            let mut tb = TensorBoard::create(&dir, None).unwrap();
            tb.scalars(1, &[("loss/total", 2.5), ("lr", 1e-4)]).unwrap();
            tb.scalars(2, &[("loss/total", 2.0)]).unwrap();
        }
        let mut tb = TensorBoard::create(&dir, Some(2)).unwrap();
        tb.scalars(3, &[("loss/total", 1.5)]).unwrap();
        let got = read_scalars(&dir).unwrap();
        let loss: Vec<(u64, f32)> = got.iter().filter(|s| s.tag == "loss/total").map(|s| (s.step, s.value)).collect();
        assert_eq!(loss, vec![(1, 2.5), (2, 2.0), (3, 1.5)]);
        assert!(got.iter().any(|s| s.tag == "lr" && (s.value - 1e-4).abs() < 1e-9));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn images_read_back_beside_the_scalars() {
        let dir = stratego_testkit::scratch_path("runlog-tb-image");
        let png = [0x89, b'P', b'N', b'G', 1, 2, 3];
        {
            let mut tb = TensorBoard::create(&dir, None).unwrap();
            tb.scalars(4, &[("loss/total", 1.0)]).unwrap();
            tb.image("eval/board", 4, &png, 10, 12).unwrap();
        }
        assert_eq!(read_images(&dir).unwrap(), vec![("eval/board".to_string(), 4, png.to_vec())]);
        assert_eq!(read_scalars(&dir).unwrap().len(), 1, "an image is not a scalar");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
