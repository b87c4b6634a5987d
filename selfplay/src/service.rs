//! The inference service: one thread owns the current network and answers
//! the batched requests of every actor.
//!
//! Each round it waits for one request, then takes every other request
//! already queued (up to `max_batch` observations), runs them as one batch
//! and sends each actor its slice. New weights from the learner are picked
//! up between rounds; every reply names the policy version that produced it,
//! so samples carry their version.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use stratego_engine::{Layout, NUM_ACTIONS};
use stratego_model::{infer, Device, Inference, ModelError, StrategoNet};

use crate::SelfPlayError;

struct Request {
    planes: Vec<f32>,
    legal: Vec<bool>,
    reply: Sender<Result<PolicyReply, ModelError>>,
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
            // The model's own error, as the inference gave it: a caller
            // tells a bad input from a device that failed.
            Ok(Err(error)) => Err(SelfPlayError::Model(error)),
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
    /// Nanoseconds the thread has spent in the network so far.
    busy: Arc<AtomicU64>,
}

impl InferenceService {
    /// Starts the service with `net` (on `device`, without autodiff) as
    /// policy version `version`.
    pub fn start(net: StrategoNet, version: u64, layout: Layout, device: Device, max_batch: usize) -> InferenceService {
        let (requests, inbox) = unbounded::<Request>();
        let (weights, new_weights) = unbounded::<(u64, StrategoNet)>();
        let busy = Arc::new(AtomicU64::new(0));
        let counter = busy.clone();
        let thread = std::thread::Builder::new()
            .name("inference".into())
            .spawn(move || serve(net, version, layout, device, max_batch.max(1), (inbox, new_weights), &counter))
            .expect("the OS can start a thread");
        InferenceService { client: PolicyClient { requests }, weights, thread: Some(thread), busy }
    }

    /// Seconds the service has spent in the network since it started (its
    /// batched forward passes; not waiting for requests): a run's share of
    /// time in inference.
    pub fn busy_seconds(&self) -> f64 {
        self.busy.load(Ordering::Relaxed) as f64 * 1e-9
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
    (inbox, new_weights): (Receiver<Request>, Receiver<(u64, StrategoNet)>),
    busy: &AtomicU64,
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
        let started = Instant::now();
        let inferred = infer(&net, layout, &planes, &legal, &device);
        busy.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        match inferred {
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
                    let _ = request.reply.send(Err(e.clone()));
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

#[cfg(test)]
mod tests {
    use stratego_engine::{Ruleset, VecEnv};

    use super::*;

    const LAYOUT: Layout = Layout::Compact;

    fn tiny_net(seed: u64) -> (StrategoNet, Device) {
        crate::test_net(seed)
    }

    /// Planes and legal masks of `games` fresh games.
    fn inputs(games: usize, seed: u64) -> (Vec<f32>, Vec<bool>) {
        let env = VecEnv::new(Ruleset::classic(), games, seed).unwrap();
        let mut planes = vec![0.0; games * LAYOUT.size()];
        let mut legal = vec![false; games * NUM_ACTIONS];
        env.observe(LAYOUT, &mut planes).unwrap();
        env.legal_mask(&mut legal).unwrap();
        (planes, legal)
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn replies_are_the_networks_and_name_the_published_version() {
        let (net, device) = tiny_net(1);
        let (other, _) = tiny_net(2);
        let (planes, legal) = inputs(3, 5);
        let service = InferenceService::start(net.clone(), 7, LAYOUT, device.clone(), 64);
        let client = service.client();

        let reply = client.evaluate(planes.clone(), legal.clone()).unwrap();
        let direct = infer(&net, LAYOUT, &planes, &legal, &device).unwrap();
        assert_eq!(reply.version, 7);
        assert_eq!(reply.inference.batch, 3);
        assert!(close(&reply.inference.policy, &direct.policy));
        assert!(close(&reply.inference.outcome, &direct.outcome));

        // Weights published before a request serve it.
        service.publish(8, other.clone());
        let reply = client.evaluate(planes.clone(), legal.clone()).unwrap();
        let direct_other = infer(&other, LAYOUT, &planes, &legal, &device).unwrap();
        assert_eq!(reply.version, 8);
        assert!(close(&reply.inference.policy, &direct_other.policy));
        assert!(!close(&direct_other.policy, &direct.policy), "the two networks differ");

        drop(client);
        service.shutdown();
    }

    #[test]
    fn concurrent_requests_each_get_their_own_slice() {
        let (net, device) = tiny_net(3);
        let service = InferenceService::start(net.clone(), 0, LAYOUT, device.clone(), 1024);
        let workers: Vec<_> = (1..=3)
            .map(|games| {
                let client = service.client();
                let (net, device) = (net.clone(), device.clone());
                std::thread::spawn(move || {
                    let (planes, legal) = inputs(games, 10 + games as u64);
                    let direct = infer(&net, LAYOUT, &planes, &legal, &device).unwrap();
                    for _ in 0..5 {
                        let reply = client.evaluate(planes.clone(), legal.clone()).unwrap();
                        assert_eq!(reply.inference.batch, games);
                        assert!(close(&reply.inference.policy, &direct.policy));
                        assert!(close(&reply.inference.value, &direct.value));
                        assert!(close(&reply.inference.belief, &direct.belief));
                    }
                })
            })
            .collect();
        for worker in workers {
            worker.join().unwrap();
        }
        service.shutdown();
    }

    #[test]
    fn a_batch_is_sliced_by_observation() {
        let all = Inference {
            batch: 3,
            policy: (0..3 * NUM_ACTIONS).map(|i| i as f32).collect(),
            outcome: (0..9).map(|i| i as f32).collect(),
            value: vec![0.0, 1.0, 2.0],
            belief: (0..3 * 1200).map(|i| i as f32).collect(),
        };
        let part = slice(&all, 1, 2);
        assert_eq!(part.batch, 2);
        assert_eq!(part.policy, all.policy[NUM_ACTIONS..].to_vec());
        assert_eq!(part.outcome, vec![3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
        assert_eq!(part.value, vec![1.0, 2.0]);
        assert_eq!(part.belief, all.belief[1200..].to_vec());
    }

    #[test]
    fn a_bad_request_is_an_error_and_the_service_keeps_serving() {
        let (net, device) = tiny_net(4);
        let service = InferenceService::start(net, 0, LAYOUT, device, 64);
        let client = service.client();
        let (planes, legal) = inputs(2, 6);
        let short = planes[..planes.len() - 1].to_vec();
        assert!(matches!(client.evaluate(short, legal.clone()), Err(SelfPlayError::Model(_))));
        assert_eq!(client.evaluate(planes, legal).unwrap().inference.batch, 2);
        drop(client);
        service.shutdown();
    }

    #[test]
    fn a_client_without_a_service_says_so() {
        let (requests, inbox) = unbounded::<Request>();
        drop(inbox);
        let client = PolicyClient { requests };
        let (planes, legal) = inputs(1, 7);
        assert!(matches!(client.evaluate(planes, legal), Err(SelfPlayError::ServiceGone)));
    }
}
