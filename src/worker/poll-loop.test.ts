import { describe, expect, it } from 'vitest'
import { startPollLoop } from './poll-loop.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A round that waits until released, recording when rounds begin and end. */
function gatedRounds() {
  const log: string[] = []
  let release: (() => void) | undefined
  let rounds = 0
  return {
    log,
    release: () => release?.(),
    round: async () => {
      const n = ++rounds
      log.push(`start ${n}`)
      await new Promise<void>((resolve) => (release = resolve))
      log.push(`end ${n}`)
    },
  }
}

describe('poll loop', () => {
  it('runs the first round after firstAfterMs, then one pollMs after each round ends', async () => {
    let rounds = 0
    const loop = startPollLoop({ pollMs: 60_000, firstAfterMs: 0, round: async () => void rounds++, onError: () => {} })
    await pause(50)
    expect(rounds).toBe(1)
    await pause(100)
    expect(rounds).toBe(1)
    await loop.stop()
  })

  it('waits one pollMs before its first round by default', async () => {
    let rounds = 0
    const loop = startPollLoop({ pollMs: 60_000, round: async () => void rounds++, onError: () => {} })
    await pause(50)
    expect(rounds).toBe(0)
    loop.wake()
    await pause(10)
    expect(rounds).toBe(1)
    await loop.stop()
  })

  it('never overlaps rounds, and a wake-up during a round brings exactly one more right after it', async () => {
    const gate = gatedRounds()
    const loop = startPollLoop({ pollMs: 60_000, round: gate.round, onError: () => {} })
    loop.wake()
    await pause(10)
    loop.wake()
    loop.wake()
    await pause(10)
    expect(gate.log).toEqual(['start 1'])
    gate.release()
    await pause(20)
    expect(gate.log).toEqual(['start 1', 'end 1', 'start 2'])
    gate.release()
    await pause(20)
    expect(gate.log).toEqual(['start 1', 'end 1', 'start 2', 'end 2'])
    await loop.stop()
  })

  it('reports a failed round, even one that throws before its first await, and carries on', async () => {
    const errors: unknown[] = []
    let rounds = 0
    const loop = startPollLoop({
      pollMs: 20,
      firstAfterMs: 0,
      round: () => {
        rounds++
        throw new Error(`round ${rounds} failed`)
      },
      onError: (error) => {
        errors.push((error as Error).message)
        throw new Error('the logger failed too')
      },
    })
    await pause(150)
    await loop.stop()
    expect(rounds).toBeGreaterThanOrEqual(3)
    expect(errors.slice(0, 2)).toEqual(['round 1 failed', 'round 2 failed'])
  })

  it('stop() tells the round in hand to stop, waits for it, and no round comes after', async () => {
    const gate = gatedRounds()
    let sawStopping = false
    const loop = startPollLoop({
      pollMs: 10,
      round: async (stopping) => {
        await gate.round()
        sawStopping = stopping()
      },
      onError: () => {},
    })
    loop.wake()
    await pause(10)
    loop.wake()
    expect(loop.running()).toBe(true)
    let stopped = false
    const stopping = loop.stop().then(() => (stopped = true))
    expect(loop.running()).toBe(false)
    await pause(10)
    expect(stopped).toBe(false)
    gate.release()
    await stopping
    expect(sawStopping).toBe(true)
    await pause(50)
    expect(gate.log).toEqual(['start 1', 'end 1'])
  })
})
