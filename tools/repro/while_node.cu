// while_node.cu - the smallest CUDA graph with a conditional WHILE node captured from a
// stream (as cuda/frame_graph.h does): a kernel counts down and clears the condition.
// `while_node nested` puts a second WHILE inside the first one's body, as stencilrt's
// sample and bounce loops are. Used to tell a compute-sanitizer limitation from a
// stencilrt bug (docs/robustness.md).
//   nvcc -arch=sm_90 -o while_node while_node.cu && compute-sanitizer --tool racecheck ./while_node [nested]
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void step(int* left, cudaGraphConditionalHandle h) {
    if (threadIdx.x == 0) cudaGraphSetConditional(h, --*left > 0 ? 1u : 0u);
}

// Appends a WHILE node on `h` to the capture on `s`; returns its body graph.
static cudaGraph_t add_while(cudaStream_t s, cudaGraphConditionalHandle h) {
    cudaStreamCaptureStatus st;
    cudaGraph_t g;
    const cudaGraphNode_t* deps;
    size_t nd;
    cudaStreamGetCaptureInfo(s, &st, nullptr, &g, &deps, nullptr, &nd);
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeWhile;
    p.conditional.size = 1;
    cudaGraphNode_t node;
    cudaGraphAddNode(&node, g, deps, nullptr, nd, &p);
    cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
    return p.conditional.phGraph_out[0];
}

__global__ void outer_step(int* left, int* inner_left, cudaGraphConditionalHandle outer,
                           cudaGraphConditionalHandle inner) {
    if (threadIdx.x == 0) {
        *inner_left = 3;
        cudaGraphSetConditional(inner, 1u);
        cudaGraphSetConditional(outer, --*left > 0 ? 1u : 0u);
    }
}

static int nested() {
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 2 * sizeof(int)));
    cudaStream_t s, side0, side1;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&side0));
    CHECK(cudaStreamCreate(&side1));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cudaStreamCaptureStatus st;
    cudaGraph_t root;
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &root, nullptr, nullptr, nullptr));
    cudaGraphConditionalHandle ho, hi;
    CHECK(cudaGraphConditionalHandleCreate(&ho, root, 1, cudaGraphCondAssignDefault));
    CHECK(cudaGraphConditionalHandleCreate(&hi, root, 1, cudaGraphCondAssignDefault));
    cudaGraph_t ob = add_while(s, ho);
    CHECK(cudaStreamBeginCaptureToGraph(side0, ob, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    cudaGraph_t ib = add_while(side0, hi);
    CHECK(cudaStreamBeginCaptureToGraph(side1, ib, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    step<<<1, 32, 0, side1>>>(d + 1, hi);
    CHECK(cudaStreamEndCapture(side1, &ib));
    outer_step<<<1, 32, 0, side0>>>(d, d + 1, ho, hi);
    CHECK(cudaStreamEndCapture(side0, &ob));
    cudaGraph_t whole;
    CHECK(cudaStreamEndCapture(s, &whole));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, whole, 0));
    const int init[2] = {4, 3};
    CHECK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    int after[2] = {-1, -1};
    CHECK(cudaMemcpy(after, d, sizeof after, cudaMemcpyDeviceToHost));
    std::printf("while_node nested: outer left %d, inner left %d (expected 0, 3)\n", after[0], after[1]);
    return after[0] == 0 && after[1] == 3 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 1) return nested();
    int* left = nullptr;
    CHECK(cudaMalloc(&left, sizeof(int)));
    cudaStream_t s, side;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&side));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cudaStreamCaptureStatus st;
    cudaGraph_t g;
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &g, nullptr, nullptr, nullptr));
    cudaGraphConditionalHandle h;
    CHECK(cudaGraphConditionalHandleCreate(&h, g, 1, cudaGraphCondAssignDefault));
    cudaGraph_t body = add_while(s, h);
    CHECK(cudaStreamBeginCaptureToGraph(side, body, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    step<<<1, 32, 0, side>>>(left, h);
    CHECK(cudaStreamEndCapture(side, &body));
    cudaGraph_t whole;
    CHECK(cudaStreamEndCapture(s, &whole));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, whole, 0));
    const int n = 5;
    CHECK(cudaMemcpy(left, &n, sizeof n, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    int after = -1;
    CHECK(cudaMemcpy(&after, left, sizeof after, cudaMemcpyDeviceToHost));
    std::printf("while_node: %d iterations (expected %d)\n", n - after, n);
    return after == 0 ? 0 : 1;
}
