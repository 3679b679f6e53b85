// ply_chunks.cpp - the PLY data read in chunks of records on every core.
//
// A binary element's records are found first: by arithmetic where every record has the
// same size (checked in parallel where the element has lists), else by one serial walk
// over the list counts. An ASCII file has one record a line, so the records are found by
// counting newlines in parallel. Then the chunks decode their records independently, with
// the serial reader's value functions (ply_read.h), and write where prefix sums put them.
// Anything this reader does not accept, it leaves to the serial reader (read_data), which
// says what is wrong and where.
#include "scene/ply_read.h"

#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <cmath>

namespace srt::ply {
namespace {

// One record's values, from the binary data or from an ASCII line.
class BinaryValues {
public:
    BinaryValues(std::string_view bytes, size_t pos, bool big_endian) : bytes_(bytes), pos_(pos), be_(big_endian) {}
    bool next(Type t, double& v) {
        const size_t n = type_size(t);
        if (n > bytes_.size() - pos_) return false;
        v = binary_value(t, bytes_.data() + pos_, be_);
        pos_ += n;
        return true;
    }
    bool skip(Type t, size_t count) {
        const size_t n = type_size(t);
        if (count > (bytes_.size() - pos_) / n) return false;
        pos_ += n * count;
        return true;
    }
    bool end_record() { return true; }
    size_t pos() const { return pos_; }

private:
    std::string_view bytes_;
    size_t pos_;
    bool be_;
};

class AsciiValues {
public:
    AsciiValues(std::string_view bytes, size_t pos) : bytes_(bytes), pos_(pos) {}
    bool next(Type t, double& v) {
        skip_blanks();
        const size_t start = pos_;
        while (pos_ < bytes_.size() && !is_space(bytes_[pos_])) ++pos_;
        bool malformed = false;
        return pos_ > start && ascii_number(bytes_.substr(start, pos_ - start), t, v, malformed);
    }
    // The serial reader's end of an element: blanks, then the line's end (or a '\r', past
    // which the line is not read), then the next line.
    bool end_record() {
        skip_blanks();
        if (pos_ < bytes_.size() && bytes_[pos_] != '\n' && bytes_[pos_] != '\r') return false;
        const size_t eol = bytes_.find('\n', pos_);
        pos_ = eol == std::string_view::npos ? bytes_.size() : eol + 1;
        return true;
    }
    size_t pos() const { return pos_; }

private:
    void skip_blanks() {
        while (pos_ < bytes_.size() && is_blank(bytes_[pos_])) ++pos_;
    }
    std::string_view bytes_;
    size_t pos_;
};

// What one record holds for the mesh.
struct Record {
    double v[3] = {0, 0, 0}, n[3] = {0, 0, 0};
    uint32_t poly[kMaxPolygon];
    size_t corners = 0;
};

// One record of element e, checked as the serial reader checks it.
template <class Values>
bool decode(Values& in, const Element& e, const Header& h, bool is_vertex, bool is_face, uint64_t vertices, Record& rec) {
    for (size_t p = 0; p < e.props.size(); ++p) {
        const Property& prop = e.props[p];
        double x = 0.0;
        if (prop.list) {
            double cnt = 0.0;
            if (!in.next(prop.count_type, cnt) || !(cnt >= 0 && cnt <= double(kMaxPolygon))) return false;
            const bool corners = is_face && int(p) == h.pi;
            if (corners) rec.corners = size_t(cnt);
            for (size_t j = 0; j < size_t(cnt); ++j) {
                if (!in.next(prop.type, x)) return false;
                if (corners) {
                    if (!(x >= 0 && x < double(vertices))) return false;
                    rec.poly[j] = uint32_t(x);
                }
            }
        } else {
            if (!in.next(prop.type, x)) return false;
            if (is_vertex) {
                if (!std::isfinite(x)) return false;
                if (int(p) == h.px) rec.v[0] = x;
                if (int(p) == h.py) rec.v[1] = x;
                if (int(p) == h.pz) rec.v[2] = x;
                if (int(p) == h.nx) rec.n[0] = x;
                if (int(p) == h.ny) rec.n[1] = x;
                if (int(p) == h.nz) rec.n[2] = x;
            }
        }
    }
    return in.end_record();
}

// A binary record's size, from its list counts alone; its corner count in `corners`.
bool skip_record(BinaryValues& in, const Element& e, int corner_list, size_t& corners) {
    for (size_t p = 0; p < e.props.size(); ++p) {
        const Property& prop = e.props[p];
        if (!prop.list) {
            if (!in.skip(prop.type, 1)) return false;
            continue;
        }
        double cnt = 0.0;
        if (!in.next(prop.count_type, cnt) || !(cnt >= 0 && cnt <= double(kMaxPolygon))) return false;
        if (int(p) == corner_list) corners = size_t(cnt);
        if (!in.skip(prop.type, size_t(cnt))) return false;
    }
    return true;
}

size_t triangles_of(size_t corners) { return corners >= 3 ? corners - 2 : 0; }

// Where a binary element's chunks of `grain` records start (and, last, where it ends),
// and how many triangles each chunk's faces make.
struct Chunks {
    std::vector<size_t> start;
    std::vector<uint64_t> triangles;
};

bool find_binary_chunks(std::string_view bytes, const Header& h, const Element& e, size_t at, uint32_t grain, int threads, Chunks& c) {
    const bool be = h.format == Format::BinaryBE;
    const int corner_list = &e == &h.elements[size_t(h.face)] ? h.pi : -1;
    const size_t nchunks = size_t((e.count + grain - 1) / grain);
    c.start.assign(nchunks + 1, at);
    c.triangles.assign(nchunks, 0);
    if (e.count == 0) return true;
    // Every record the size of the first (a mesh of triangles only): checked in parallel.
    BinaryValues first(bytes, at, be);
    size_t corners0 = 0;
    if (!skip_record(first, e, corner_list, corners0)) return false;
    const size_t stride = first.pos() - at;
    const bool fixed = std::none_of(e.props.begin(), e.props.end(), [](const Property& p) { return p.list; });
    if (stride > 0 && e.count <= (bytes.size() - at) / stride) {
        std::atomic<bool> uniform{true};
        if (fixed) {
            for (size_t ci = 0; ci <= nchunks; ++ci) c.start[ci] = at + std::min<size_t>(size_t(e.count), ci * grain) * stride;
            return true;
        }
        parallel_for(uint32_t(nchunks), 1, threads, [&](uint32_t cb, uint32_t ce) {
            for (uint32_t ci = cb; ci < ce && uniform.load(std::memory_order_relaxed); ++ci) {
                const uint64_t k0 = uint64_t(ci) * grain, k1 = std::min<uint64_t>(e.count, k0 + grain);
                uint64_t tris = 0;
                for (uint64_t k = k0; k < k1; ++k) {
                    BinaryValues in(bytes, at + size_t(k) * stride, be);
                    size_t corners = 0;
                    if (!skip_record(in, e, corner_list, corners) || in.pos() != at + size_t(k + 1) * stride) {
                        uniform = false;
                        break;
                    }
                    tris += triangles_of(corners);
                }
                c.triangles[ci] = tris;
            }
        });
        if (uniform) {
            for (size_t ci = 0; ci <= nchunks; ++ci) c.start[ci] = at + std::min<size_t>(size_t(e.count), ci * grain) * stride;
            return true;
        }
    }
    // Records of different sizes: one walk over their counts.
    BinaryValues in(bytes, at, be);
    std::fill(c.triangles.begin(), c.triangles.end(), 0);
    for (uint64_t k = 0; k < e.count; ++k) {
        if (k % grain == 0) c.start[size_t(k / grain)] = in.pos();
        size_t corners = 0;
        if (!skip_record(in, e, corner_list, corners)) return false;
        c.triangles[size_t(k / grain)] += triangles_of(corners);
    }
    c.start[nchunks] = in.pos();
    return true;
}

void add_triangles(const Record& rec, uint32_t* out) {
    for (size_t j = 1; j + 1 < rec.corners; ++j) {
        *out++ = rec.poly[0];
        *out++ = rec.poly[j];
        *out++ = rec.poly[j + 1];
    }
}

void put_vertex(const Header& h, const Record& rec, size_t i, Mesh& out) {
    out.positions[i] = Point3(rec.v[0], rec.v[1], rec.v[2]);
    if (h.normals) out.normals[i] = glm::vec3(float(rec.n[0]), float(rec.n[1]), float(rec.n[2]));
}

bool read_binary(std::string_view bytes, const Header& h, uint32_t grain, int threads, Mesh& out) {
    const bool be = h.format == Format::BinaryBE;
    const Element& vertex = h.elements[size_t(h.vertex)];
    size_t at = h.data_pos;
    for (const Element& e : h.elements) {
        Chunks c;
        if (!find_binary_chunks(bytes, h, e, at, grain, threads, c)) return false;
        const bool is_vertex = &e == &vertex, is_face = &e == &h.elements[size_t(h.face)];
        const uint32_t nchunks = uint32_t(c.triangles.size());
        std::vector<uint64_t> first_tri(nchunks + 1, 0);
        for (uint32_t ci = 0; ci < nchunks; ++ci) first_tri[ci + 1] = first_tri[ci] + c.triangles[ci];
        if (is_vertex) {
            out.positions.resize(size_t(e.count));
            if (h.normals) out.normals.resize(size_t(e.count));
        }
        if (is_face) out.indices.resize(size_t(3 * first_tri[nchunks]));
        std::atomic<bool> ok{true};
        std::atomic<size_t> dropped{0};
        if (is_vertex || is_face)
            parallel_for(nchunks, 1, threads, [&](uint32_t cb, uint32_t ce) {
                Record rec;
                for (uint32_t ci = cb; ci < ce && ok.load(std::memory_order_relaxed); ++ci) {
                    BinaryValues in(bytes, c.start[ci], be);
                    uint32_t* tri = out.indices.data() + 3 * first_tri[ci];
                    size_t short_faces = 0;
                    const uint64_t k0 = uint64_t(ci) * grain, k1 = std::min<uint64_t>(e.count, k0 + grain);
                    for (uint64_t k = k0; k < k1; ++k) {
                        if (!decode(in, e, h, is_vertex, is_face, vertex.count, rec)) {
                            ok = false;
                            break;
                        }
                        if (is_vertex) put_vertex(h, rec, size_t(k), out);
                        if (is_face) {
                            add_triangles(rec, tri);
                            tri += 3 * triangles_of(rec.corners);
                            short_faces += rec.corners < 3;
                        }
                    }
                    dropped += short_faces;
                }
            });
        if (!ok) return false;
        out.dropped += dropped;
        at = c.start[nchunks];
    }
    return at == bytes.size();
}

bool read_ascii(std::string_view bytes, const Header& h, uint32_t grain, int threads, Mesh& out) {
    uint64_t records = 0;
    for (const Element& e : h.elements) records += e.count;
    if (records == 0) return false;  // nothing to gain; the serial reader checks the rest
    // The records' lines: newlines counted in blocks, then every grain-th line's start.
    const size_t begin = h.data_pos;
    constexpr size_t kBlock = 1 << 20;
    const uint32_t nblocks = uint32_t((bytes.size() - begin + kBlock - 1) / kBlock);
    std::vector<uint64_t> lines_before(size_t(nblocks) + 1, 0);
    parallel_for(nblocks, 1, threads, [&](uint32_t b0, uint32_t b1) {
        for (uint32_t b = b0; b < b1; ++b) {
            const size_t lo = begin + size_t(b) * kBlock, hi = std::min(bytes.size(), lo + kBlock);
            lines_before[b + 1] = uint64_t(std::count(bytes.data() + lo, bytes.data() + hi, '\n'));
        }
    });
    for (uint32_t b = 0; b < nblocks; ++b) lines_before[b + 1] += lines_before[b];
    if (records > lines_before[nblocks] + 1) return false;  // the file ends early
    const uint32_t nchunks = uint32_t((records + grain - 1) / grain);
    std::vector<size_t> start(nchunks, begin);
    parallel_for(nblocks, 1, threads, [&](uint32_t b0, uint32_t b1) {
        for (uint32_t b = b0; b < b1; ++b) {
            const size_t lo = begin + size_t(b) * kBlock, hi = std::min(bytes.size(), lo + kBlock);
            uint64_t line = lines_before[b];  // newlines before this block: the next line's index - 1
            for (size_t p = lo; p < hi; ++p)
                if (bytes[p] == '\n') {
                    ++line;  // the line starting at p + 1
                    if (line < records && line % grain == 0) start[size_t(line / grain)] = p + 1;
                }
        }
    });

    const Element& vertex = h.elements[size_t(h.vertex)];
    const Element& face = h.elements[size_t(h.face)];
    std::vector<uint64_t> first_record(h.elements.size(), 0);  // of each element
    for (size_t i = 1; i < h.elements.size(); ++i) first_record[i] = first_record[i - 1] + h.elements[i - 1].count;
    out.positions.resize(size_t(vertex.count));
    if (h.normals) out.normals.resize(size_t(vertex.count));
    std::vector<std::vector<uint32_t>> chunk_indices(nchunks);
    std::vector<size_t> chunk_dropped(nchunks, 0);
    std::atomic<bool> ok{true};
    size_t end_of_records = begin;
    parallel_for(nchunks, 1, threads, [&](uint32_t cb, uint32_t ce) {
        Record rec;
        for (uint32_t ci = cb; ci < ce && ok.load(std::memory_order_relaxed); ++ci) {
            AsciiValues in(bytes, start[ci]);
            const uint64_t r0 = uint64_t(ci) * grain, r1 = std::min<uint64_t>(records, r0 + grain);
            size_t ei = size_t(std::upper_bound(first_record.begin(), first_record.end(), r0) - first_record.begin()) - 1;
            for (uint64_t r = r0; r < r1; ++r) {
                while (r >= first_record[ei] + h.elements[ei].count) ++ei;
                const Element& e = h.elements[ei];
                const bool is_vertex = &e == &vertex, is_face = &e == &face;
                if (!decode(in, e, h, is_vertex, is_face, vertex.count, rec)) {
                    ok = false;
                    break;
                }
                if (is_vertex) put_vertex(h, rec, size_t(r - first_record[ei]), out);
                if (is_face) {
                    std::vector<uint32_t>& idx = chunk_indices[ci];
                    idx.resize(idx.size() + 3 * triangles_of(rec.corners));
                    add_triangles(rec, idx.data() + idx.size() - 3 * triangles_of(rec.corners));
                    chunk_dropped[ci] += rec.corners < 3;
                }
            }
            if (ci == nchunks - 1) end_of_records = in.pos();
        }
    });
    if (!ok) return false;
    // Nothing but whitespace after the last record.
    for (size_t p = end_of_records; p < bytes.size(); ++p)
        if (!is_space(bytes[p])) return false;
    std::vector<size_t> at(nchunks + 1, 0);
    for (uint32_t ci = 0; ci < nchunks; ++ci) {
        at[ci + 1] = at[ci] + chunk_indices[ci].size();
        out.dropped += chunk_dropped[ci];
    }
    out.indices.resize(at[nchunks]);
    parallel_for(nchunks, 1, threads, [&](uint32_t cb, uint32_t ce) {
        for (uint32_t ci = cb; ci < ce; ++ci) std::copy(chunk_indices[ci].begin(), chunk_indices[ci].end(), out.indices.begin() + ptrdiff_t(at[ci]));
    });
    return true;
}

}  // namespace

bool read_chunked(std::string_view bytes, const Header& h, ReadOptions opt, Mesh& out) {
    const uint32_t grain = opt.grain > 0 ? opt.grain : 65536;
    const int threads = opt.threads > 0 ? opt.threads : host_cores();
    out = Mesh{};
    const bool ok = h.format == Format::Ascii ? read_ascii(bytes, h, grain, threads, out)
                                              : read_binary(bytes, h, grain, threads, out);
    out.chunked = ok;
    return ok;
}

}  // namespace srt::ply
