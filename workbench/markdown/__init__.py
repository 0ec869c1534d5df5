"""markdown"""
