import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import {
  BACKGROUND_WAIT_MS,
  backgroundTurn,
  busyShare,
  enterForeground,
  foregroundInFlight,
  spareTurn,
} from './foreground.js'

describe('long work waits for interactive requests', () => {
  it('goes on at the next turn when no request is in flight', async () => {
    expect(foregroundInFlight()).toBe(0)
    const began = performance.now()
    await backgroundTurn()
    expect(performance.now() - began).toBeLessThan(BACKGROUND_WAIT_MS / 2)
  })

  it('waits while requests are in flight and goes on as soon as the last one leaves', async () => {
    const events: string[] = []
    const first = enterForeground()
    const second = enterForeground()
    const step = backgroundTurn().then(() => events.push('step'))
    await sleep(5)
    events.push('first leaves')
    first()
    await sleep(5)
    events.push('second leaves')
    second()
    await step
    expect(events).toEqual(['first leaves', 'second leaves', 'step'])
    expect(foregroundInFlight()).toBe(0)
  })

  it('counts a request out once, however often its leave is called', async () => {
    const leave = enterForeground()
    const other = enterForeground()
    leave()
    leave()
    expect(foregroundInFlight()).toBe(1)
    other()
    expect(foregroundInFlight()).toBe(0)
  })

  it(`never waits more than ${BACKGROUND_WAIT_MS} ms, so a node always busy with requests still does its work`, async () => {
    const leave = enterForeground()
    try {
      const began = performance.now()
      await backgroundTurn()
      const waited = performance.now() - began
      expect(waited).toBeGreaterThanOrEqual(BACKGROUND_WAIT_MS - 2)
      expect(waited).toBeLessThan(BACKGROUND_WAIT_MS * 4)
    } finally {
      leave()
    }
  })

  describe('work that is to use only what requests leave idle (spareTurn)', () => {
    const rule = { share: 0.25, windowMs: 100, waitMs: 1_000 }

    it('goes on at once when requests kept the node busy for no more than the share', async () => {
      await sleep(rule.windowMs)
      const leave = enterForeground()
      await sleep(10)
      leave()
      expect(busyShare(rule.windowMs)).toBeGreaterThan(0.05)
      expect(busyShare(rule.windowMs)).toBeLessThan(rule.share)
      const began = performance.now()
      await spareTurn(rule)
      expect(performance.now() - began).toBeLessThan(15)
    })

    it('waits while requests keep the node busy, until their share of the window falls under the rule', async () => {
      const leave = enterForeground()
      await sleep(rule.windowMs)
      const began = performance.now()
      const step = spareTurn(rule).then(() => performance.now())
      await sleep(40)
      const left = performance.now()
      leave()
      const went = await step
      // A quarter of the window was still busy until about three quarters of it had passed since the request left.
      expect(went - left).toBeGreaterThanOrEqual(rule.windowMs * 0.75 - 5)
      expect(went - began).toBeLessThan(rule.waitMs)
    })

    it('goes on after waiting its longest while requests never stop', async () => {
      const leave = enterForeground()
      try {
        await sleep(rule.windowMs)
        const began = performance.now()
        await spareTurn({ ...rule, waitMs: 150 })
        const waited = performance.now() - began
        expect(waited).toBeGreaterThanOrEqual(148)
        expect(waited).toBeLessThan(600)
      } finally {
        leave()
      }
    })
  })
})
