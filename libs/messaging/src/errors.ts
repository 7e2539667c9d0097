// Typed failures of the bus. Callers (the outbox relay) tell a permanent
// refusal (validation) from a transient one (broker unavailable, unroutable).

/** The payload does not match the catalog schema of its routing key (or the key is unknown). */
export class MessageValidationError extends Error {
  override readonly name = 'MessageValidationError';
  constructor(
    readonly routingKey: string,
    readonly problems: string[],
  ) {
    super(`invalid "${routingKey}" message: ${problems.join('; ')}`);
  }
}

/** Not connected, closed, or the broker did not confirm in time: try again later. */
export class BusUnavailableError extends Error {
  override readonly name = 'BusUnavailableError';
}

/** The broker refused (nacked) the message. */
export class PublishRejectedError extends Error {
  override readonly name = 'PublishRejectedError';
}

/** A mandatory message reached no queue: its consumer has not declared its queue yet. */
export class UnroutableMessageError extends Error {
  override readonly name = 'UnroutableMessageError';
  constructor(readonly routingKey: string) {
    super(`no queue is bound for "${routingKey}"`);
  }
}
