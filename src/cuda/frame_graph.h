// frame_graph.h - a frame as a CUDA graph: RAII owners and the capture of device-side
// WHILE loops.
//
// The CUDA executor captures a frame's launches once per configuration (the stream
// calls the stage launchers make are recorded, not run) and replays the instantiated
// graph every frame. The sample and bounce loops become conditional WHILE nodes whose
// bodies are captured the same way; kernels inside them decide, on the device, whether
// the loop goes round again (cudaGraphSetConditional in k_end_bounce / k_end_sample).
#pragma once

#include "cuda/check.h"

#include <cuda_runtime.h>

#include <utility>

namespace srt::cuda {

// Owns a cudaGraphExec_t (the instantiated, launchable graph).
class GraphExec {
public:
    GraphExec() = default;
    explicit GraphExec(cudaGraph_t graph) { CUDA_CHECK(cudaGraphInstantiate(&exec_, graph, 0)); }
    ~GraphExec() { reset(); }
    GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
    GraphExec& operator=(GraphExec&& o) noexcept {
        if (this != &o) {
            reset();
            exec_ = std::exchange(o.exec_, nullptr);
        }
        return *this;
    }
    GraphExec(const GraphExec&) = delete;
    GraphExec& operator=(const GraphExec&) = delete;

    explicit operator bool() const { return exec_ != nullptr; }
    void launch(cudaStream_t s) const { CUDA_CHECK(cudaGraphLaunch(exec_, s)); }
    void reset() {
        if (exec_) cudaGraphExecDestroy(exec_);
        exec_ = nullptr;
    }

private:
    cudaGraphExec_t exec_ = nullptr;
};

// Owns a cudaGraph_t.
class Graph {
public:
    Graph() = default;
    explicit Graph(cudaGraph_t g) : g_(g) {}
    ~Graph() {
        if (g_) cudaGraphDestroy(g_);
    }
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    cudaGraph_t get() const { return g_; }

private:
    cudaGraph_t g_ = nullptr;
};

// The graph that `stream` is capturing into.
inline cudaGraph_t capturing_graph(cudaStream_t stream) {
    cudaStreamCaptureStatus status{};
    cudaGraph_t graph = nullptr;
    CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, nullptr, nullptr, nullptr));
    return graph;
}

// A loop condition for a WHILE node that will sit in `root` or in a body graph under
// it; 1 at the start of every launch of the graph.
inline cudaGraphConditionalHandle make_loop_handle(cudaGraph_t root) {
    cudaGraphConditionalHandle h{};
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&h, root, 1u, cudaGraphCondAssignDefault));
    return h;
}

// While `stream` is capturing: appends a conditional node of `type` with `size`
// branches on `handle` after the work captured so far, makes the capture on `stream`
// continue after it, and returns its branch graphs (owned by the node).
inline void add_conditional(cudaStream_t stream, cudaGraphConditionalHandle handle, cudaGraphConditionalNodeType type,
                            unsigned size, cudaGraph_t* branches) {
    cudaStreamCaptureStatus status{};
    cudaGraph_t graph = nullptr;
    const cudaGraphNode_t* deps = nullptr;
    size_t ndeps = 0;
    CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph, &deps, nullptr, &ndeps));
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node = nullptr;
    CUDA_CHECK(cudaGraphAddNode(&node, graph, deps, nullptr, ndeps, &p));
    for (unsigned k = 0; k < size; ++k) branches[k] = p.conditional.phGraph_out[k];
    CUDA_CHECK(cudaStreamUpdateCaptureDependencies(stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
}

// Captures body(side) into `branch` on the side stream `side` (not capturing).
template <class Body>
void capture_into(cudaStream_t side, cudaGraph_t branch, Body&& body) {
    CUDA_CHECK(cudaStreamBeginCaptureToGraph(side, branch, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    body(side);
    CUDA_CHECK(cudaStreamEndCapture(side, &branch));
}

// A WHILE node on `handle` whose body is body(side). The body must leave the condition
// 0 for the loop to end.
template <class Body>
void capture_while(cudaStream_t stream, cudaStream_t side, cudaGraphConditionalHandle handle, Body&& body) {
    cudaGraph_t branch[1];
    add_conditional(stream, handle, cudaGraphCondTypeWhile, 1, branch);
    capture_into(side, branch[0], body);
}

// An IF/ELSE node on `handle`: then_body(side) when it is non-zero, else_body(side) when 0.
template <class Then, class Else>
void capture_if_else(cudaStream_t stream, cudaStream_t side, cudaGraphConditionalHandle handle, Then&& then_body,
                     Else&& else_body) {
    cudaGraph_t branch[2];
    add_conditional(stream, handle, cudaGraphCondTypeIf, 2, branch);
    capture_into(side, branch[0], then_body);
    capture_into(side, branch[1], else_body);
}

}  // namespace srt::cuda
