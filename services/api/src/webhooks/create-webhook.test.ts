import { randomBytes } from 'node:crypto';
import { decryptSecret } from '@cds/core';
import { fakeApplication, fakeStore } from '../../../../test/support/fake-store';
import { useCaseContext } from '../../../../test/support/use-case-context';
import { createWebhook } from './create-webhook';
import type { WebhookSettings } from './webhook-settings';

const NOW = new Date('2025-06-01T10:00:00.000Z');
// IP literals: the URL check resolves nothing.
const PUBLIC_URL = 'https://93.184.216.34/hooks';

const settings = (allowPrivateCidrs: string[] = []): WebhookSettings => ({ encryptionKey: randomBytes(32), dnsServers: [], allowPrivateCidrs });

describe('createWebhook', () => {
  it('stores an active subscription with its signing secret sealed, and shows the secret once', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const s = settings();

    const created = await createWebhook(useCaseContext(store, NOW), s, application, { url: PUBLIC_URL, events: ['domain.ready', 'domain.deleted'] });

    expect(created).toMatchObject({ url: PUBLIC_URL, events: ['domain.ready', 'domain.deleted'], status: 'active', created_at: NOW.toISOString(), revoked_at: null });
    expect(store.tables.subscriptions).toEqual([expect.objectContaining({ id: created.id, applicationId: application.id, status: 'active' })]);
    const [secret] = store.tables.secrets;
    expect(secret).toMatchObject({ subscriptionId: created.id, expiresAt: null });
    expect(secret?.secretSealed).not.toContain(created.secret);
    expect(decryptSecret(secret?.secretSealed as string, s.encryptionKey, { purpose: 'webhook-secret', id: secret?.id as string })).toBe(created.secret);
  });

  it('refuses at the application\'s webhook_subscriptions limit, counting active subscriptions only', async () => {
    const application = fakeApplication({ limits: { webhook_subscriptions: 2 } });
    const store = fakeStore({ applications: [application] });
    const s = settings();
    const first = await createWebhook(useCaseContext(store, NOW), s, application, { url: PUBLIC_URL, events: ['domain.ready'] });
    await createWebhook(useCaseContext(store, NOW), s, application, { url: PUBLIC_URL, events: ['domain.ready'] });

    await expect(createWebhook(useCaseContext(store, NOW), s, application, { url: PUBLIC_URL, events: ['domain.ready'] }))
      .rejects.toMatchObject({ code: 'webhook_limit_reached', details: { limit: 2, active: 2 } });
    expect(store.tables.subscriptions).toHaveLength(2);
    expect(store.tables.secrets).toHaveLength(2);

    await store.run((r) => r.webhookSubscriptions.update(application.id, first.id, { status: 'revoked', revokedAt: NOW, updatedAt: NOW }));
    await expect(createWebhook(useCaseContext(store, NOW), s, application, { url: PUBLIC_URL, events: ['domain.ready'] })).resolves.toMatchObject({ status: 'active' });
  });

  it.each([
    ['plain http', 'http://93.184.216.34/hooks', 'scheme_not_https'],
    ['a loopback address', 'https://127.0.0.1/hooks', 'loopback'],
    ['a private address', 'https://10.1.2.3/hooks', 'private'],
    ['credentials', 'https://user:pass@93.184.216.34/hooks', 'credentials_in_url'],
  ])('refuses %s with invalid_webhook_url before opening a unit of work', async (_name, url, reason) => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    await expect(createWebhook(useCaseContext(store, NOW), settings(), application, { url, events: ['domain.ready'] }))
      .rejects.toMatchObject({ code: 'invalid_webhook_url', details: { reason } });
    expect(store.units).toEqual([]);
  });

  it('takes a private address the deployment allows', async () => {
    const application = fakeApplication();
    const store = fakeStore({ applications: [application] });
    const created = await createWebhook(useCaseContext(store, NOW), settings(['10.0.0.0/8']), application, { url: 'https://10.1.2.3/hooks', events: ['domain.ready'] });
    expect(created.url).toBe('https://10.1.2.3/hooks');
  });
});
