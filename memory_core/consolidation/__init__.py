"""Consolidation: turning one captured source into validated claims.

``prompt`` builds what the model reads; ``contract`` decides what of its answer is accepted.
"""
