"""autorecover.controllers.jobs.controller"""
