"""hotspot: Rodinia's HotSpot thermal simulation (Che et al. 2009; the compact thermal model
of Huang et al.): NT explicit Euler steps of the temperature of an R x C grid of chip cells,
each heated by its power and exchanging heat with its four neighbours (a boundary cell uses
itself for a neighbour outside the grid) and with the ambient through the package."""

import numpy as np


def initialize(rng, NT, R, C):
    # Temperatures (kelvin) scattered around 330 K, and a power map (watts per cell) of a
    # background load with a few hot blocks, so that the result depends on both.
    temp = rng.uniform(320.0, 340.0, (R, C))
    power = rng.uniform(0.0, 0.5, (R, C))
    for _ in range(4):
        r0 = int(rng.integers(0, R))
        c0 = int(rng.integers(0, C))
        power[r0:r0 + max(1, R // 8), c0:c0 + max(1, C // 8)] += 1.0
    return {"temp": temp, "power": power}


def hotspot(temp, power, NT, R, C):
    # The model's constants (Rodinia HotSpot): a 16 mm x 16 mm silicon die 0.5 mm thick.
    t_chip = 0.0005
    chip_height = 0.016
    chip_width = 0.016
    k_si = 100.0
    spec_heat_si = 1.75e6
    factor_chip = 0.5
    max_pd = 3.0e6
    precision = 0.001
    amb_temp = 80.0
    grid_height = chip_height / R
    grid_width = chip_width / C
    cap = factor_chip * spec_heat_si * t_chip * grid_width * grid_height
    rx = grid_width / (2.0 * k_si * t_chip * grid_height)
    ry = grid_height / (2.0 * k_si * t_chip * grid_width)
    rz = t_chip / (k_si * grid_height * grid_width)
    max_slope = max_pd / (factor_chip * t_chip * spec_heat_si)
    step = precision / max_slope
    # One step reads the old grid through a copy with a ring of ghost cells that repeat the
    # boundary (the clamped neighbours), then writes the new grid in place.
    pad = np.empty((R + 2, C + 2), dtype=np.float64)
    for t in range(NT):
        pad[1:R + 1, 1:C + 1] = temp
        pad[0, 1:C + 1] = temp[0, :]
        pad[R + 1, 1:C + 1] = temp[R - 1, :]
        pad[1:R + 1, 0] = temp[:, 0]
        pad[1:R + 1, C + 1] = temp[:, C - 1]
        temp[:, :] = pad[1:R + 1, 1:C + 1] + (step / cap) * (
            power
            + (pad[2:R + 2, 1:C + 1] + pad[0:R, 1:C + 1] - 2.0 * pad[1:R + 1, 1:C + 1]) / ry
            + (pad[1:R + 1, 2:C + 2] + pad[1:R + 1, 0:C] - 2.0 * pad[1:R + 1, 1:C + 1]) / rx
            + (amb_temp - pad[1:R + 1, 1:C + 1]) / rz)
