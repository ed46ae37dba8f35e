// TokenReview and SubjectAccessReview with @kubernetes/client-node against the fake API server, as the
// API server asks them: who a token is, and whether that user may make a non-resource request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FakeKubeApiServer, kubeConfigFor } from '../k8s/testing/fake-api-server.js';
import { kubernetesReviewer, type Reviewer } from './kubernetes-reviews.js';

describe('Kubernetes reviews', () => {
  let fake: FakeKubeApiServer;
  let reviewer: Reviewer;
  before(async () => {
    fake = await FakeKubeApiServer.start();
    fake.addToken('alice-token', { username: 'alice', uid: 'u-1', groups: ['flow-viewers'] });
    fake.allow('alice', 'get /flowrecords', 'put /loglevel');
    reviewer = kubernetesReviewer(kubeConfigFor(fake), 2000);
  });
  after(() => fake.stop());

  it('a TokenReview says who a known token is, and that an unknown one is not authenticated', async () => {
    assert.deepEqual(await reviewer.reviewToken('alice-token'), { authenticated: true, user: { username: 'alice', uid: 'u-1', groups: ['flow-viewers'] } });
    assert.deepEqual(await reviewer.reviewToken('forged'), { authenticated: false, reason: 'invalid bearer token' });
    assert.equal(fake.count({ method: 'POST', path: '/apis/authentication.k8s.io/v1/tokenreviews', status: 201 }), 2);
  });

  it('a SubjectAccessReview allows exactly the verb and path the user was given', async () => {
    const alice = { username: 'alice', groups: ['flow-viewers'] };
    assert.equal((await reviewer.reviewAccess(alice, { verb: 'get', path: '/flowrecords' })).allowed, true);
    assert.equal((await reviewer.reviewAccess(alice, { verb: 'put', path: '/loglevel' })).allowed, true);
    const denied = await reviewer.reviewAccess(alice, { verb: 'get', path: '/recordmetrics' });
    assert.deepEqual(denied, { allowed: false, reason: 'no rule of the fake allows alice to get /recordmetrics' });
    assert.equal((await reviewer.reviewAccess({ username: 'system:anonymous', groups: ['system:unauthenticated'] }, { verb: 'get', path: '/flowrecords' })).allowed, false);
  });

  it('a review Kubernetes does not answer in time fails, its request aborted', async () => {
    fake.intercept((req) => (req.path.endsWith('/tokenreviews') ? new Promise(() => {}) : undefined));
    const slow = kubernetesReviewer(kubeConfigFor(fake), 200);
    await assert.rejects(slow.reviewToken('alice-token'), /abort|timeout/i);
  });
});
