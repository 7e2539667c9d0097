export { answerChallenge, startChallengeResponder, type ChallengeResponder, type ChallengeResponderDeps } from './challenges/challenge-responder';
export { TrafficCounter, type TrafficCounterDeps } from './usage/traffic-counter';
export { createFairUseWatch, STALE_CLAIM_MS, type FairUseWatch, type FairUseWatchDeps } from './usage/fair-use';
export { startEdge, type Edge, type EdgeOptions } from './edge-server';
export { type EdgeObserver, type TrafficSink } from './observing/edge-observer';
export { startEdgeService, type EdgeService, type EdgeServiceDeps } from './edge-service';
