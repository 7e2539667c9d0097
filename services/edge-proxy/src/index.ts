export { answerChallenge, startChallengeResponder, type ChallengeResponder, type ChallengeResponderDeps } from './challenge-responder';
export { TrafficCounter, type TrafficCounterDeps } from './traffic-counter';
export { createFairUseWatch, STALE_CLAIM_MS, type FairUseWatch, type FairUseWatchDeps } from './fair-use';
export { startEdge, type Edge, type EdgeOptions } from './edge-server';
export { type EdgeObserver, type TrafficSink } from './edge-observer';
export { startEdgeService, type EdgeService, type EdgeServiceDeps } from './edge-service';
