// ploc_rounds.h - PLOC's clustering rounds on the device (accel/ploc.h step 4), for
// cuda/ploc_build.cu: one launch a round while clusters are many, then the last rounds in
// one block. Stream-ordered on the current stream; nothing here waits for the host.
#pragma once

#include "accel/ploc.h"
#include "cuda/device_arena.h"

#include <cstdint>

namespace srt {

// The clustering's counts of a round: clusters left, nodes made so far.
struct RoundState {
    uint32_t count, made;
};

// Below this many clusters, the rest of the rounds run in one block (k_tail), the boxes in
// its shared memory: a launch a round then costs more than the round's work.
uint32_t ploc_tail_clusters();

// What the rounds need besides the clusters: each round's tiles publish their sums there
// for the tiles after them (a decoupled look-back), and take their turn from a ticket.
struct PlocRoundScratch {
    uint64_t* status[2] = {nullptr, nullptr};
    uint32_t* ticket = nullptr;  // two: a round's and the next's
    uint32_t tiles = 0;
    void carve(DeviceArena& a, uint32_t clusters);
    // Before the first round.
    void reset() const;
};

// Round `round`: the clusters `cluster`, `box` and its state `state[round & 1]` to the
// next round's `next_cluster`, `next_box` and state; new nodes into `nodes`. `bound`: at
// least the round's cluster count (it sizes the grid), and no more than the last round's.
void enqueue_ploc_round(RoundState* state, uint32_t round, const uint32_t* cluster, const PlocNode* box,
                        PlocNode* nodes, uint32_t* next_cluster, PlocNode* next_box, uint32_t bound,
                        const PlocRoundScratch& s);

// Rounds in one block until one cluster is left or `rounds_left` ran (at most
// ploc_tail_clusters() clusters); how many ran into `rounds_run`, the count left into
// state->count.
void enqueue_ploc_tail(RoundState* state, const uint32_t* cluster, const PlocNode* box, PlocNode* nodes,
                       uint32_t rounds_left, uint32_t* rounds_run);

}  // namespace srt
