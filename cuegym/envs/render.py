"""Drawing a table: ``rgb_array`` images, SVG and a window, the names the envs and tools import.

The work is split by job: the scene (frame, shapes, colours, checks) in
:mod:`cuegym.envs.render_scene`, the numpy rasteriser in :mod:`cuegym.envs.render_raster`,
SVG in :mod:`cuegym.envs.render_svg`, stroke paths in :mod:`cuegym.envs.render_paths` and
the matplotlib window in :mod:`cuegym.envs.render_window`. The picture's frame, drawing
order and ball colours are specified in docs/envs.md, "Rendering".
"""

from __future__ import annotations

from cuegym.envs.render_paths import check_shot, stroke_paths
from cuegym.envs.render_raster import draw_table
from cuegym.envs.render_scene import (
    CLOTH,
    CUE_WHITE,
    CUSHION,
    CUSHION_DEPTH_M,
    DIGIT,
    IVORY,
    LINE,
    LINE_WIDTH_M,
    OUTLINE_DARKEN,
    PATH_WIDTH_PX,
    POCKET,
    POOL,
    RAIL,
    SNOOKER,
    SNOOKER_ORDER,
    SPOT_RADIUS_M,
    Frame,
    ball_colors,
    check_layout,
    check_table_name,
    frame,
    table_shapes,
)
from cuegym.envs.render_svg import to_svg
from cuegym.envs.render_window import Viewer, has_display

__all__ = ["CLOTH", "CUE_WHITE", "CUSHION", "CUSHION_DEPTH_M", "DIGIT", "IVORY", "LINE", "LINE_WIDTH_M",
           "OUTLINE_DARKEN", "PATH_WIDTH_PX", "POCKET", "POOL", "RAIL", "SNOOKER", "SNOOKER_ORDER", "SPOT_RADIUS_M",
           "Frame", "Viewer", "ball_colors", "check_layout", "check_shot", "check_table_name", "draw_table", "frame",
           "has_display", "stroke_paths", "table_shapes", "to_svg"]
