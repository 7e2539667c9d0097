// Traffic counters of the edge (migration 1760000000100).

export interface TrafficDayRow {
  applicationId: string;
  day: string; // 'YYYY-MM-DD', UTC
  requests: number;
  responseBytes: number;
}

/** Proxied requests and response bytes per application and UTC day. */
export interface TrafficRepository {
  /** Adds to the day's counters (creating the row), atomically for concurrent edges. */
  addTraffic(applicationId: string, day: string, requests: number, bytes: number): Promise<void>;
  /** Stored days from `fromDay` to `toDay` inclusive, oldest first; days without traffic have no row. */
  range(applicationId: string, fromDay: string, toDay: string): Promise<TrafficDayRow[]>;
}
