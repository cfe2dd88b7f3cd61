import { describe, expect, it } from 'vitest'
import { complete, completions, wordBeingTyped } from './completion.js'

const KEYWORDS = [
  { keyword: 'rating' },
  { keyword: 'summary' },
  { keyword: 'tag' },
  { keyword: 'tagOwner' },
  { keyword: 'typeName' },
]

describe('TQL keyword completion', () => {
  it('completes the word being typed, after a space, a parenthesis or an operator', () => {
    expect(completions('rat', KEYWORDS).map((k) => k.keyword)).toEqual(['rating'])
    expect(completions('rating > 2 and ta', KEYWORDS).map((k) => k.keyword)).toEqual(['tag', 'tagOwner'])
    expect(completions('hasTag(su', KEYWORDS).map((k) => k.keyword)).toEqual(['summary'])
    expect(complete('rating > 2 and ta', 'tagOwner')).toBe('rating > 2 and tagOwner ')
  })

  it('offers nothing for one letter, a finished keyword, or inside a string', () => {
    expect(completions('r', KEYWORDS)).toEqual([])
    expect(completions('tag', KEYWORDS).map((k) => k.keyword)).toEqual(['tagOwner'])
    expect(completions('summary = "ra', KEYWORDS)).toEqual([])
    expect(wordBeingTyped('summary = "a \\" ra')).toEqual({ word: '', start: 18 })
  })
})
