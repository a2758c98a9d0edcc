"""approval"""
