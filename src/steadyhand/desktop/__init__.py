"""Desktop automation on Linux: AT-SPI tree, X input, the same snapshot → ref → act."""
