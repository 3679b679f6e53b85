// room_obj.h - a small closed room (a box open on one side) with a triangle inside, as OBJ
// text: the scene the viewer's camera test flies through and the render-origin test
// renders, so that what one prints the other can check.
#pragma once

namespace srt::test {

inline constexpr const char* kRoomObj =
    "v -1 -1 -1\nv 1 -1 -1\nv 1 1 -1\nv -1 1 -1\nv -1 -1 1\nv 1 -1 1\nv 1 1 1\nv -1 1 1\n"
    "f 1 2 3 4\nf 1 5 6 2\nf 4 3 7 8\nf 1 4 8 5\nf 2 6 7 3\nv 0 -0.5 0\nv 0.5 0.2 0\nv -0.3 0.4 0.2\nf 9 10 11\n";

}  // namespace srt::test
