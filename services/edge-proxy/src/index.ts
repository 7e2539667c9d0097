export { answerChallenge, startChallengeResponder, type ChallengeResponder, type ChallengeResponderDeps } from './challenge-responder';
