// while_node.cu - the smallest CUDA graph with a conditional WHILE node captured from a
// stream (as cuda/frame_graph.h does): a kernel counts down and clears the condition.
// `while_node nested` puts a second WHILE inside the first one's body, as stencilrt's
// sample and bounce loops are. `while_node barrier` runs a 1024-thread kernel with two
// uniform __syncthreads (every thread, no branch around them) as the loop's body, and
// `while_node barrier-stream` the same kernel from a stream, no graph, and
// `while_node barrier-nested` puts it in the ELSE branch of an IF/ELSE node inside two
// nested WHILE nodes, as stencilrt's tail kernel sits: synccheck should pass all three. Used to tell a compute-sanitizer limitation from a stencilrt bug
// (docs/robustness.md).
//   nvcc -arch=sm_90 -o while_node while_node.cu && compute-sanitizer --tool racecheck ./while_node [nested]
//   compute-sanitizer --tool synccheck ./while_node barrier|barrier-stream
#include <cstdio>
#include <string>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e)); return 1; } } while (0)

__global__ void step(int* left, cudaGraphConditionalHandle h) {
    if (threadIdx.x == 0) cudaGraphSetConditional(h, --*left > 0 ? 1u : 0u);
}

// Two barriers that every thread of the block reaches on the same path.
__global__ void barrier_step(int* left, cudaGraphConditionalHandle h, bool in_graph) {
    __shared__ int x[1024];
    x[threadIdx.x] = int(threadIdx.x);
    __syncthreads();
    const int v = x[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        const int l = --*left;
        if (in_graph) cudaGraphSetConditional(h, l > 0 ? 1u : 0u);
    }
    if (v < 0) *left = v;  // never: keeps the shared read
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

// Appends an IF/ELSE node on `h` to the capture on `s`; returns its two branch graphs.
static void add_if_else(cudaStream_t s, cudaGraphConditionalHandle h, cudaGraph_t out[2]) {
    cudaStreamCaptureStatus st;
    cudaGraph_t g;
    const cudaGraphNode_t* deps;
    size_t nd;
    cudaStreamGetCaptureInfo(s, &st, nullptr, &g, &deps, nullptr, &nd);
    cudaGraphNodeParams p{};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h;
    p.conditional.type = cudaGraphCondTypeIf;
    p.conditional.size = 2;
    cudaGraphNode_t node;
    cudaGraphAddNode(&node, g, deps, nullptr, nd, &p);
    cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
    out[0] = p.conditional.phGraph_out[0];
    out[1] = p.conditional.phGraph_out[1];
}

__global__ void nothing() {}

// Two nested WHILE loops (2 x 3 iterations); the inner body is IF (cond 0) {nothing}
// ELSE {barrier_step}, barrier_step counting the inner loop down.
static int barrier_nested() {
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 2 * sizeof(int)));
    cudaStream_t s, side0, side1, side2;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&side0));
    CHECK(cudaStreamCreate(&side1));
    CHECK(cudaStreamCreate(&side2));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cudaStreamCaptureStatus st;
    cudaGraph_t root;
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &root, nullptr, nullptr, nullptr));
    cudaGraphConditionalHandle ho, hi, hif;
    CHECK(cudaGraphConditionalHandleCreate(&ho, root, 1, cudaGraphCondAssignDefault));
    CHECK(cudaGraphConditionalHandleCreate(&hi, root, 1, cudaGraphCondAssignDefault));
    cudaGraph_t ob = add_while(s, ho);
    CHECK(cudaStreamBeginCaptureToGraph(side0, ob, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    CHECK(cudaGraphConditionalHandleCreate(&hif, ob, 0, cudaGraphCondAssignDefault));
    cudaGraph_t ib = add_while(side0, hi);
    CHECK(cudaStreamBeginCaptureToGraph(side1, ib, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    cudaGraph_t br[2];
    add_if_else(side1, hif, br);
    CHECK(cudaStreamBeginCaptureToGraph(side2, br[0], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    nothing<<<1, 32, 0, side2>>>();
    CHECK(cudaStreamEndCapture(side2, &br[0]));
    CHECK(cudaStreamBeginCaptureToGraph(side2, br[1], nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
    barrier_step<<<1, 1024, 0, side2>>>(d + 1, hi, true);
    CHECK(cudaStreamEndCapture(side2, &br[1]));
    CHECK(cudaStreamEndCapture(side1, &ib));
    outer_step<<<1, 32, 0, side0>>>(d, d + 1, ho, hi);
    CHECK(cudaStreamEndCapture(side0, &ob));
    cudaGraph_t whole;
    CHECK(cudaStreamEndCapture(s, &whole));
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, whole, 0));
    const int init[2] = {2, 3};
    CHECK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    int after[2] = {-1, -1};
    CHECK(cudaMemcpy(after, d, sizeof after, cudaMemcpyDeviceToHost));
    std::printf("while_node barrier-nested: outer left %d, inner left %d (expected 0, 3)\n", after[0], after[1]);
    return after[0] == 0 && after[1] == 3 ? 0 : 1;
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
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "nested") return nested();
    if (mode == "barrier-nested") return barrier_nested();
    const bool barrier = mode == "barrier" || mode == "barrier-stream";
    if (mode == "barrier-stream") {
        int* left = nullptr;
        CHECK(cudaMalloc(&left, sizeof(int)));
        const int n = 5;
        CHECK(cudaMemcpy(left, &n, sizeof n, cudaMemcpyHostToDevice));
        for (int k = 0; k < n; ++k) barrier_step<<<1, 1024>>>(left, 0, false);
        CHECK(cudaDeviceSynchronize());
        std::printf("while_node barrier-stream: %d launches\n", n);
        return 0;
    }
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
    if (barrier) barrier_step<<<1, 1024, 0, side>>>(left, h, true);
    else step<<<1, 32, 0, side>>>(left, h);
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
