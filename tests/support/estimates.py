"""The refunds the baseline's stories are estimated at under the default policy: one table, checked on the fake
unit of work and on both databases."""

from aftersales.domain.enums import ReasonCode

FIELDS = ("story", "quantity", "reason", "item", "fee", "shipping", "total")
ESTIMATES = [
    # ThinkPad ¥12,999.00, laptops: 10% restocking fee when not the shop's fault.
    ("vip_laptop_recent", 1, ReasonCode.DEFECTIVE, 1299900, 0, 0, 1299900),
    ("vip_laptop_recent", 1, ReasonCode.NO_LONGER_NEEDED, 1299900, 129990, 0, 1169910),
    # FreeBuds x3 at ¥1,199.00 with ¥179.85 discount on the line (¥59.95 a unit, rounded up); audio 5% fee.
    ("headphones_in_window_qty3", 1, ReasonCode.DAMAGED, 113905, 0, 0, 113905),
    ("headphones_in_window_qty3", 2, ReasonCode.OTHER, 227810, 11390, 0, 216420),
    ("headphones_in_window_qty3", 3, ReasonCode.NO_LONGER_NEEDED, 341715, 17085, 0, 324630),
    # T-shirt pack ¥99.00 with ¥10.00 shipping; apparel has no restocking fee.
    ("cheap_tshirts_in_window", 1, ReasonCode.WRONG_ITEM, 9900, 0, 1000, 10900),
    ("cheap_tshirts_in_window", 1, ReasonCode.NO_LONGER_NEEDED, 9900, 0, 0, 9900),
]
