import { describe, expect, it } from '@jest/globals';
import type { AdapterListing, BridgeToolDescriptor } from '#mcp-bridge/index.js';
import type { AdapterToolRef } from '#skill-loader/index.js';
import { loadConfig } from '../config/app-config.js';
import { AdapterToolDirectory } from './adapter-tool-directory.js';

/** A stand-in for the MCP bridge: one adapter whose listing the test replaces, and a count of tool lookups. */
function fakeBridge() {
  const state = { listing: null as AdapterListing | null | undefined, lookups: 0 };
  const descriptor = (listing: AdapterListing): BridgeToolDescriptor | null =>
    listing.tools.length === 0
      ? null
      : ({
          adapter: 'spice',
          name: 'simulate',
          available: listing.reachable,
          disabled: false,
          unavailableReason: listing.reachable ? null : 'down',
        } as unknown as BridgeToolDescriptor);
  const bridge = {
    freshListingFor: () => state.listing,
    getToolNow: () => {
      state.lookups++;
      return state.listing ? descriptor(state.listing) : state.listing;
    },
    getTool: async () => (state.listing ? descriptor(state.listing) : null),
    isDisabled: () => false,
  };
  return { state, bridge };
}

describe('AdapterToolDirectory.statusJsonOf', () => {
  const required: AdapterToolRef[] = [{ tool_id: 'spice.simulate', capability: 'circuit_simulation', required: true }];
  const listing = (reachable: boolean): AdapterListing => ({ reachable, tools: [{ name: 'simulate' } as never], checkedAt: Date.now() });

  const directoryWith = (bridge: unknown) => {
    const directory = new AdapterToolDirectory(loadConfig({}));
    (directory as unknown as { bridge: unknown }).bridge = bridge;
    return directory;
  };

  it('makes the text once per fresh listing, and again as soon as the listing is another', () => {
    const { state, bridge } = fakeBridge();
    const directory = directoryWith(bridge);
    state.listing = listing(true);
    const first = directory.statusJsonOf(required);
    expect(JSON.parse(first as string)).toEqual([expect.objectContaining({ tool_id: 'spice.simulate', available: true, reason: null })]);
    expect(directory.statusJsonOf(required)).toBe(first);
    expect(state.lookups).toBe(1);

    // A refresh (a new listing object): the adapter is down now.
    state.listing = listing(false);
    expect(JSON.parse(directory.statusJsonOf(required) as string)).toEqual([expect.objectContaining({ available: false, reason: 'down' })]);
    expect(state.lookups).toBe(2);
  });

  it('asks the adapter when its listing is not fresh, and keeps nothing from that answer', async () => {
    const { state, bridge } = fakeBridge();
    const directory = directoryWith(bridge);
    state.listing = undefined;
    const answer = directory.statusJsonOf(required);
    expect(answer).toBeInstanceOf(Promise);
    expect(JSON.parse(await answer)).toEqual([expect.objectContaining({ available: false })]);
    state.listing = listing(true);
    expect(JSON.parse(directory.statusJsonOf(required) as string)).toEqual([expect.objectContaining({ available: true })]);
  });

  it('without adapters, the same text for a version every time', () => {
    const directory = new AdapterToolDirectory(loadConfig({}));
    const first = directory.statusJsonOf(required);
    expect(JSON.parse(first as string)).toEqual([
      expect.objectContaining({ available: false, reason: expect.stringContaining('TOOL_ADAPTERS') }),
    ]);
    expect(directory.statusJsonOf(required)).toBe(first);
  });
});
