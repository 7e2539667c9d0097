import { ControlPlaneHealth, type ControlPlaneState } from './control-plane';

describe('ControlPlaneHealth', () => {
  it('reports a change of state once, with the failures counted since it began', () => {
    const changes: ControlPlaneState[] = [];
    const health = new ControlPlaneHealth((state) => changes.push(state));
    health.record(true);
    expect(changes).toEqual([]);
    expect(health.state()).toMatchObject({ reachable: true, lastError: null, failures: 0 });

    health.record(false, new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    health.record(false, new Error('Connection terminated unexpectedly'));
    health.record(false, 'later failure');
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ reachable: false, lastError: 'connect ECONNREFUSED 127.0.0.1:5432', failures: 1 });
    expect(health.state()).toMatchObject({ reachable: false, lastError: 'later failure', failures: 3 });

    health.record(true);
    expect(changes).toHaveLength(2);
    expect(changes[1]).toMatchObject({ reachable: true, lastError: 'later failure', failures: 0 });
    health.record(false, new Error('again'));
    expect(health.state()).toMatchObject({ reachable: false, lastError: 'again', failures: 1 });
  });
});
