"""The user's own state: the job index, hidden jobs and counter samples kept between runs."""
