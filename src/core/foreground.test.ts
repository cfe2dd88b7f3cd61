import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { BACKGROUND_WAIT_MS, backgroundTurn, enterForeground, foregroundInFlight } from './foreground.js'

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
})
