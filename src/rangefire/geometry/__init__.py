"""Exact 2-D geometry: points, segments, polygons, frames from bearings, distances and contact."""

from rangefire.geometry.exact import (
    BEARING_TOLERANCE_DEGREES,
    Contact,
    Frame,
    GeometryError,
    Point,
    Polygon,
    Segment,
    Where,
    arc_meets,
    clip_halfplane,
    closest_on_segment,
    closest_points,
    direction,
    orient,
    rectangle,
    segments_intersect,
)

__all__ = [
    "BEARING_TOLERANCE_DEGREES",
    "Contact",
    "Frame",
    "GeometryError",
    "Point",
    "Polygon",
    "Segment",
    "Where",
    "arc_meets",
    "clip_halfplane",
    "closest_on_segment",
    "closest_points",
    "direction",
    "orient",
    "rectangle",
    "segments_intersect",
]
