//! The inference service: one thread owns the current network and answers
//! the batched requests of every actor.
//!
//! Each round it waits for one request, then takes every other request
//! already queued (up to `max_batch` observations), runs them as one batch
//! and sends each actor its slice. New weights from the learner are picked
//! up between rounds; every reply names the policy version that produced it,
//! so samples carry their version.

use std::thread::JoinHandle;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use stratego_engine::{Layout, NUM_ACTIONS};
use stratego_model::{infer, Device, Inference, StrategoNet};

use crate::SelfPlayError;

struct Request {
    planes: Vec<f32>,
    legal: Vec<bool>,
    reply: Sender<Result<PolicyReply, String>>,
}

/// The answer to one request.
pub struct PolicyReply {
    pub version: u64,
    pub inference: Inference,
}

/// An actor's handle on the service (cheap to clone).
#[derive(Clone)]
pub struct PolicyClient {
    requests: Sender<Request>,
}

impl PolicyClient {
    /// Policy, values and beliefs for a batch of observations.
    pub fn evaluate(&self, planes: Vec<f32>, legal: Vec<bool>) -> Result<PolicyReply, SelfPlayError> {
        let (reply, answer) = bounded(1);
        self.requests.send(Request { planes, legal, reply }).map_err(|_| SelfPlayError::ServiceGone)?;
        match answer.recv() {
            Ok(Ok(reply)) => Ok(reply),
            Ok(Err(message)) => Err(SelfPlayError::Model(stratego_model::ModelError::Input(message))),
            Err(_) => Err(SelfPlayError::ServiceGone),
        }
    }
}

/// The running service. Dropping every client (and the service's own
/// sender, in `shutdown`) stops its thread.
pub struct InferenceService {
    client: PolicyClient,
    weights: Sender<(u64, StrategoNet)>,
    thread: Option<JoinHandle<()>>,
}

impl InferenceService {
    /// Starts the service with `net` (on `device`, without autodiff) as
    /// policy version `version`.
    pub fn start(net: StrategoNet, version: u64, layout: Layout, device: Device, max_batch: usize) -> InferenceService {
        let (requests, inbox) = unbounded::<Request>();
        let (weights, new_weights) = unbounded::<(u64, StrategoNet)>();
        let thread = std::thread::Builder::new()
            .name("inference".into())
            .spawn(move || serve(net, version, layout, device, max_batch.max(1), inbox, new_weights))
            .expect("the OS can start a thread");
        InferenceService { client: PolicyClient { requests }, weights, thread: Some(thread) }
    }

    pub fn client(&self) -> PolicyClient {
        self.client.clone()
    }

    /// Publishes new weights; requests served after this use them.
    pub fn publish(&self, version: u64, net: StrategoNet) {
        // The service only stops after `shutdown`, which consumes `self`.
        let _ = self.weights.send((version, net));
    }

    /// Stops the thread once every actor has dropped its client.
    pub fn shutdown(mut self) {
        let (dead, _) = unbounded();
        self.client = PolicyClient { requests: dead };
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(
    mut net: StrategoNet,
    mut version: u64,
    layout: Layout,
    device: Device,
    max_batch: usize,
    inbox: Receiver<Request>,
    new_weights: Receiver<(u64, StrategoNet)>,
) {
    let size = layout.size();
    while let Ok(first) = inbox.recv() {
        // Only the newest weights matter.
        while let Ok((v, n)) = new_weights.try_recv() {
            (version, net) = (v, n);
        }
        let mut batch = vec![first];
        let mut observations = batch[0].legal.len() / NUM_ACTIONS;
        while observations < max_batch {
            let Ok(more) = inbox.try_recv() else { break };
            observations += more.legal.len() / NUM_ACTIONS;
            batch.push(more);
        }
        let planes: Vec<f32> = batch.iter().flat_map(|r| r.planes.iter().copied()).collect();
        let legal: Vec<bool> = batch.iter().flat_map(|r| r.legal.iter().copied()).collect();
        match infer(&net, layout, &planes, &legal, &device) {
            Ok(all) => {
                let mut start = 0;
                for request in batch {
                    let n = request.planes.len() / size;
                    let part = slice(&all, start, n);
                    start += n;
                    let _ = request.reply.send(Ok(PolicyReply { version, inference: part }));
                }
            }
            Err(e) => {
                for request in batch {
                    let _ = request.reply.send(Err(e.to_string()));
                }
            }
        }
    }
}

/// Observations `start..start + n` of a batched inference.
fn slice(all: &Inference, start: usize, n: usize) -> Inference {
    let per = |v: &[f32], width: usize| v[start * width..(start + n) * width].to_vec();
    Inference {
        batch: n,
        policy: per(&all.policy, NUM_ACTIONS),
        outcome: per(&all.outcome, 3),
        value: per(&all.value, 1),
        belief: per(&all.belief, all.belief.len() / all.batch),
    }
}
