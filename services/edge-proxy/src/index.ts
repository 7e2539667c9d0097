export { answerChallenge, startChallengeResponder, type ChallengeResponder, type ChallengeResponderDeps } from './challenge-responder';
export { TrafficCounter, type TrafficCounterDeps } from './traffic-counter';
export { createFairUseWatch, STALE_CLAIM_MS, type FairUseWatch, type FairUseWatchDeps } from './fair-use';
export { startEdge, type Edge, type EdgeOptions, type EdgeObserver, type TrafficSink } from './edge-server';
export { startEdgeService, type EdgeService, type EdgeServiceDeps } from './edge-service';
