from django.shortcuts import render


def index(request):
    return render(request, "leaderboards/index.html")


def tournaments(request):
    return render(request, "leaderboards/tournaments.html")
